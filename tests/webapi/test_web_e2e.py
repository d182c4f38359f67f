"""End to end in headless Chromium: a person plays a whole game against greedy (Kalah,
Sungka, and Tak on small boards: placing flats, walls and capstones and moving stacks by
their PTN buttons); the
dropdown names players in words with their ratings; the analysis switch, the hint, undo
and the move log's events.

The tests start the app under gunicorn on a free loopback port (webapi.serving), or use
the server at MANCALA_E2E_URL when it is set (deploy/docker-check.sh points it at the api
image's container), drive Debian's chromium through chromium-driver with selenium
(deploy/ci-extras.sh installs both in CI), click as a person would, and stop the server.
Every wait is explicit and bounded. With MANCALA_SCREENSHOT=PATH the analysis test also
saves the page mid-game with the analysis on and a hint shown (that is how
docs/screenshot.png is made), and as a phone would show it (PATH-phone.png), and the 4x4
Tak game saves the page with a stack's moves listed (PATH-tak.png). One test serves the
app from a thread of its own, with one search slot that it holds, to see the page wait
for a refused search and ask again.

Where the server has the solver's endgame database (it offers the solver then: cache/, or
the api image), the analysis is exact and the opening's values are checked; on a fresh
clone it is minimax's estimate, and the tests check that instead.
"""

import json
import os
import random
import re
import shutil
import tempfile
import threading
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from webapi import create_app
from webapi.ratings import load_ratings
from webapi.serving import running_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
WAIT = 30  # seconds, the bound of every wait


def _driver(profile: str, width: int, height: int) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


@pytest.fixture(scope="module")
def server():
    if not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)):
        pytest.fail(f"{CHROMIUM} and {DRIVER} are needed: run deploy/ci-extras.sh (apt-get)")
    if os.environ.get("MANCALA_E2E_URL"):
        yield os.environ["MANCALA_E2E_URL"].rstrip("/")
        return
    with running_server(workers=1, threads=4) as url:
        yield url


def _offers_solver(server: str) -> bool:
    """True when the server offers the solver: it has the endgame database of Kalah(6)."""
    with urllib.request.urlopen(f"{server}/api/players", timeout=WAIT) as answer:
        return any(player["name"] == "solver" for player in json.load(answer)["players"])


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the file's tests (each loads the page afresh; the page keeps no
    state in the browser: no cookies, no storage)."""
    profile = tempfile.mkdtemp(prefix="mancala-chromium-")
    driver = _driver(profile, 900, 1000)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _phase(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-phase")


def _wait_turn_or_end(driver) -> str:
    WebDriverWait(driver, WAIT).until(lambda d: _phase(d) in ("your-turn", "over"))
    return _phase(driver)


@pytest.mark.parametrize("variant,seat", [("kalah", "0"), ("sungka", "1")])
def test_a_whole_game_against_greedy(server, browser, variant, seat):
    rng = random.Random(7)
    browser.get(f"{server}/?delay=0")
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "variant")).select_by_value(variant)
    Select(browser.find_element(By.ID, "opponent")).select_by_value("greedy")
    Select(browser.find_element(By.ID, "seat")).select_by_value(seat)
    browser.find_element(By.ID, "new-game").click()

    houses = 6 if variant == "kalah" else 7
    wait.until(ec.presence_of_all_elements_located((By.CSS_SELECTOR, "#board .pit")))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .pit")) == 2 * houses + 2
    moves = 0
    while _wait_turn_or_end(browser) == "your-turn":
        assert not browser.find_element(By.ID, "error").is_displayed()
        playable = browser.find_elements(By.CSS_SELECTOR, "#board .pit.playable")
        assert playable, "the person's turn, yet no house to click"
        rng.choice(playable).click()
        moves += 1
        assert moves < 200, "the game does not end"

    assert moves > 0
    assert not browser.find_element(By.ID, "error").is_displayed()
    status = browser.find_element(By.ID, "status").text
    assert any(word in status for word in ("You win", "greedy wins", "A draw")), status
    board = [
        int(pit.text.split()[-1]) for pit in browser.find_elements(By.CSS_SELECTOR, "#board .pit")
    ]
    assert sum(board) == 2 * houses * (4 if variant == "kalah" else 7)  # no seed lost
    logged = browser.find_elements(By.CSS_SELECTOR, "#moves li")
    assert sum(item.text.startswith("You:") for item in logged) == moves
    assert any(item.text.startswith("greedy:") for item in logged)
    assert browser.find_element(By.ID, "score").get_attribute("data-result") in (
        "win",
        "loss",
        "draw",
    )


TAK_STONES = {3: 10, 4: 15}  # each player's stones on the boards played here


@pytest.mark.parametrize("size,seat", [(3, "0"), (4, "1")])
def test_a_whole_tak_game_against_greedy(server, browser, size, seat):
    rng = random.Random(size)
    browser.get(f"{server}/?delay=0")
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "variant")).select_by_value("tak")
    Select(browser.find_element(By.ID, "size")).select_by_value(str(size))
    Select(browser.find_element(By.ID, "opponent")).select_by_value("greedy")
    Select(browser.find_element(By.ID, "seat")).select_by_value(seat)
    browser.find_element(By.ID, "new-game").click()

    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .square")) == size * size)
    assert not browser.find_element(By.ID, "analysis").is_displayed()  # Kalah's tools hidden
    moves = stack_moves = 0
    while _wait_turn_or_end(browser) == "your-turn":
        assert not browser.find_element(By.ID, "error").is_displayed()
        kinds = [
            k for k in browser.find_elements(By.CSS_SELECTOR, "#place-kind .kind") if k.is_enabled()
        ]
        rng.choice(kinds).click()
        playable = browser.find_elements(By.CSS_SELECTOR, "#board .square.playable")
        assert playable, "the person's turn, yet no square to click"
        stacks = [sq for sq in playable if sq.get_attribute("data-stack")]
        square = rng.choice(
            stacks if stacks and (not stack_moves or rng.random() < 0.5) else playable
        )
        name, stack = square.get_attribute("data-name"), square.get_attribute("data-stack")
        square.click()
        if stack:  # one of the person's stacks: its moves are listed as PTN buttons
            buttons = browser.find_elements(By.CSS_SELECTOR, "#stack-moves .stack-move")
            assert buttons and all(name in b.text for b in buttons)
            if os.environ.get("MANCALA_SCREENSHOT") and size == 4:
                path = Path(os.environ["MANCALA_SCREENSHOT"])
                path.parent.mkdir(parents=True, exist_ok=True)
                assert browser.save_screenshot(str(path.with_stem(path.stem + "-tak")))
            rng.choice(buttons).click()
            stack_moves += 1
        moves += 1
        assert moves < 300, "the game does not end"

    assert moves > 0 and not browser.find_element(By.ID, "error").is_displayed()
    assert stack_moves > 0  # the first turn with a stack of the person's moves it
    status = browser.find_element(By.ID, "status").text
    assert any(word in status for word in ("You win", "greedy wins", "A draw")), status
    squares = browser.find_elements(By.CSS_SELECTOR, "#board .square")
    on_board = sum(
        len(sq.get_attribute("data-stack").replace("S", "").replace("C", "")) for sq in squares
    )
    left = [
        int(n) for n in re.findall(r"(\d+) stones? left", browser.find_element(By.ID, "score").text)
    ]
    assert len(left) == 2 and on_board == 2 * TAK_STONES[size] - sum(left)  # no piece lost
    for piece in browser.find_elements(By.CSS_SELECTOR, "#board .piece[class*=' ']"):
        classes = set(piece.get_attribute("class").split())
        assert (
            len(classes & {"white", "black"}) == 1
            and len(classes & {"flat", "wall", "capstone"}) == 1
        )
    logged = _log(browser)
    assert sum(item.startswith("You:") for item in logged) == moves
    assert any(item.startswith("greedy:") for item in logged)


def _start(browser, server, variant="kalah", opponent="greedy", seat="0"):
    browser.get(f"{server}/?delay=0")
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "variant")).select_by_value(variant)
    Select(browser.find_element(By.ID, "opponent")).select_by_value(opponent)
    Select(browser.find_element(By.ID, "seat")).select_by_value(seat)
    browser.find_element(By.ID, "new-game").click()
    return wait


def _board(driver) -> list[int]:
    """The board as the page shows it, in the rules' order of pits."""
    pits = driver.find_elements(By.CSS_SELECTOR, "#board .pit")
    shown = {
        int(p.get_attribute("data-index")): p.find_element(By.CLASS_NAME, "count") for p in pits
    }
    return [int(shown[i].text) for i in sorted(shown)]


def _log(driver) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#moves li")]


def _house(driver, house: int):
    return driver.find_element(By.CSS_SELECTOR, f'#board .house.mine[data-house="{house}"]')


def test_the_dropdown_names_players_in_words_with_their_ratings(server, browser):
    browser.get(f"{server}/?delay=0")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    options = {
        o.get_attribute("value"): o.text
        for o in Select(browser.find_element(By.ID, "opponent")).options
    }
    shipped = load_ratings()["ratings"]
    assert options["minimax:t=0.1"].startswith("Minimax search, 0.1 s a move (")
    assert options["mcts:5000"].startswith("Monte Carlo tree search, 5,000 simulations a move")
    for spec, text in options.items():
        if spec in shipped:
            assert text.endswith(f", rated {shipped[spec]['rating']})"), text
        else:
            assert text.endswith("(not rated)"), text
    Select(browser.find_element(By.ID, "opponent")).select_by_value("minimax:t=0.1")
    summary = browser.find_element(By.ID, "opponent-summary").text
    assert f"Rating {shipped['minimax:t=0.1']['rating']} ±" in summary and "kalah(6,4)" in summary
    Select(browser.find_element(By.ID, "variant")).select_by_value("sungka")
    sungka = [o.text for o in Select(browser.find_element(By.ID, "opponent")).options]
    assert sungka and all(text.endswith("(not rated)") for text in sungka)  # rated in Kalah


def test_the_dropdown_offers_only_the_players_of_the_board_chosen(server, browser):
    browser.get(f"{server}/?delay=0")
    WebDriverWait(browser, WAIT).until(
        lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready")
    )
    Select(browser.find_element(By.ID, "variant")).select_by_value("tak")

    def offered(size: str) -> set[str]:
        Select(browser.find_element(By.ID, "size")).select_by_value(size)
        return {
            o.get_attribute("value")
            for o in Select(browser.find_element(By.ID, "opponent")).options
        }

    small, standard = offered("3"), offered("5")
    assert "sarsa" in small and "sarsa" not in standard  # its table is for 3x3
    assert "az-net" in standard and "az-net" not in small  # its weights are for 5x5
    assert {"greedy", "mcts:5000"} <= small & standard  # any board


def test_analysis_hint_undo_and_the_move_log(server, browser):
    wait = _start(browser, server, opponent="minimax:t=0.1")
    wait.until(lambda d: _phase(d) == "your-turn")
    assert "expert" in browser.find_element(By.ID, "score").text  # the opponent's level
    labels = [
        p.get_attribute("data-label") for p in browser.find_elements(By.CSS_SELECTOR, ".store")
    ]
    assert sorted(labels) == ["their store", "your store"]
    opening = _board(browser)

    browser.find_element(By.ID, "analysis").click()
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-analysis") != "pending")
    kind = browser.find_element(By.ID, "board").get_attribute("data-analysis")
    values = {
        int(el.get_attribute("data-house")): el.find_element(By.CLASS_NAME, "value").text
        for el in browser.find_elements(By.CSS_SELECTOR, "#board .house.mine")
    }
    assert all(values.values()) and len(values) == 6  # every legal move has its value
    exact = _offers_solver(server)
    assert kind == ("exact" if exact else "estimate")
    if exact:  # Kalah(6,4) with perfect play: c wins by 8, a loses by 14
        assert values[2] == "+8" and values[0] == "−14"
    else:
        assert all(text.startswith("≈") for text in values.values())

    browser.find_element(By.ID, "hint").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .hinted"))
    hinted = browser.find_element(By.CSS_SELECTOR, "#board .hinted")
    assert "playable" in hinted.get_attribute("class")
    if exact:
        assert hinted.get_attribute("data-house") == "2"
    assert "Hint:" in browser.find_element(By.ID, "status").text

    _house(browser, 2).click()  # c: its last seed falls in the store
    wait.until(lambda d: _phase(d) == "your-turn" and _log(d))
    assert _log(browser) == ["You: c (extra turn)"]
    after_c = _board(browser)
    assert after_c != opening and after_c[6] == 1  # the seed in your store
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-analysis") != "pending")
    browser.find_element(By.ID, "hint").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .hinted"))
    screenshot = os.environ.get("MANCALA_SCREENSHOT")
    if screenshot:
        path = Path(screenshot)
        path.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(path))
        browser.set_window_size(390, 844)  # a phone held upright
        browser.save_screenshot(str(path.with_stem(path.stem + "-phone")))
        browser.set_window_size(900, 1000)

    _house(browser, 5).click()  # f: the turn passes; the opponent replies
    wait.until(lambda d: _phase(d) in ("your-turn", "over") and len(_log(d)) >= 3)
    assert _log(browser)[1].startswith("You: f")
    assert any(item.startswith("minimax:t=0.1: ") for item in _log(browser)[2:])
    wait.until(lambda d: d.find_element(By.ID, "board").get_attribute("data-analysis") != "pending")
    browser.find_element(By.ID, "hint").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#board .hinted"))

    browser.find_element(By.ID, "undo").click()  # f and the replies to it are taken back
    wait.until(lambda d: _board(d) == after_c)
    assert _log(browser) == ["You: c (extra turn)"] and _phase(browser) == "your-turn"
    assert not browser.find_elements(By.CSS_SELECTOR, "#board .hinted")
    browser.find_element(By.ID, "undo").click()
    wait.until(lambda d: _board(d) == opening)
    assert _log(browser) == [] and not browser.find_element(By.ID, "undo").is_enabled()
    assert not browser.find_element(By.ID, "error").is_displayed()


@pytest.fixture
def busy_server():
    """The app with one search slot, served by werkzeug in a thread of this process (so the
    test can hold the slot), and its admission."""
    app = create_app({"SEARCH_SLOTS": 1})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app.extensions["mancala_admission"]
    finally:
        server.shutdown()
        thread.join(WAIT)


def test_a_refused_search_is_asked_again_and_the_page_says_it_waits(busy_server, browser):
    url, admission = busy_server
    browser.get(f"{url}/?delay=0")
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))
    Select(browser.find_element(By.ID, "opponent")).select_by_value("minimax:t=0.1")
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")  # minimax moves first
    with ExitStack() as held:
        held.enter_context(admission.search("192.0.2.1"))  # another client's search
        browser.find_element(By.ID, "new-game").click()
        wait.until(lambda d: _phase(d) == "waiting")
        assert "busy" in browser.find_element(By.ID, "status").text
        assert admission.counts["refused_busy"] >= 1
    _wait_turn_or_end(browser)  # the slot is free: the page asked again and got the move
    assert not browser.find_element(By.ID, "error").is_displayed()
    assert _log(browser)[0].startswith("minimax:t=0.1: ")
