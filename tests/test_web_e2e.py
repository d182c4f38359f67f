"""End to end: a person plays a whole game against greedy in headless Chromium.

The test starts the app under gunicorn on a free loopback port (webapi.serving), drives
Debian's chromium through chromium-driver with selenium (deploy/ci-extras.sh installs
both in CI), clicks houses until the game ends, and stops the server. Every wait is
explicit and bounded. With MANCALA_SCREENSHOT=PATH it also saves the page mid-game
(that is how docs/screenshot.png is made), and as a phone would show it (PATH-phone.png).
"""

import os
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

from webapi.serving import running_server

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
    with running_server(workers=1, threads=4) as url:
        yield url


@pytest.fixture
def browser():
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
    screenshot = os.environ.get("MANCALA_SCREENSHOT")
    while _wait_turn_or_end(browser) == "your-turn":
        assert not browser.find_element(By.ID, "error").is_displayed()
        playable = browser.find_elements(By.CSS_SELECTOR, "#board .pit.playable")
        assert playable, "the person's turn, yet no house to click"
        if screenshot and variant == "kalah" and moves == 6:
            path = Path(screenshot)
            path.parent.mkdir(parents=True, exist_ok=True)
            browser.save_screenshot(str(path))
            browser.set_window_size(390, 844)  # a phone held upright
            browser.save_screenshot(str(path.with_stem(path.stem + "-phone")))
            browser.set_window_size(900, 1000)
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
