"""The solver's opening book and the MTD(f) first guess: every entry is the exact value
and best moves of its position, a bad book is ignored, the player reads the book."""

import json
import random

import pytest

from mancala.ai import make_player
from mancala.ai import solver as solver_player
from mancala.commands.solve_book import build_book
from mancala.game_state import GameState
from mancala.games.replay import replayed
from mancala.games.sowing.solver import Solver, store_lead
from mancala.games.sowing.solver.book import book_key, book_path, load_book, save_book
from mancala.learn.labels import FirstPlies

START = GameState.new(houses=4, seeds=3)


def small_solver() -> Solver:
    return Solver(4, False, 8, cache_dir=None, progress=False, tt_bits=16)


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    path = tmp_path_factory.mktemp("book") / "book.json"
    book = build_book(START, path, small_solver(), progress=False)
    assert load_book(START, path) == book  # written as it was built
    return book


def test_every_book_entry_is_the_exact_value_and_best_moves(book):
    fresh = small_solver()
    seen = 0
    for state in _first_turn_positions():
        entry = book.get(book_key(state))
        if entry is None:
            continue
        seen += 1
        result = fresh.solve(state)
        assert entry["value"] == result["value"] - store_lead(state)
        assert entry["best"] == sorted(result["best"])
    assert seen >= 5


def test_the_book_covers_the_opening_and_every_first_reply(book):
    assert book_key(START) in book
    for state in _first_turn_positions():
        if state.player == 1 and not state.is_over():
            assert book_key(state) in book


def _first_turn_positions():
    """The opening and every position after a complete first turn of player 0."""
    out, todo = [START], [START]
    while todo:
        state = todo.pop()
        for move in state.legal_moves():
            child = state.play(move)
            out.append(child)
            if child.player == 0 and not child.is_over():
                todo.append(child)
    return out


def test_a_book_round_trips_and_a_bad_one_is_ignored_with_a_warning(book, tmp_path):
    path = save_book(START, book, tmp_path / "book.json")
    assert load_book(START, path) == book
    other_rules = GameState.new(houses=4, seeds=3, empty_capture=True)
    with pytest.warns(UserWarning, match="other rules"):
        assert load_book(other_rules, path) == {}
    path.write_text(path.read_text()[:50])
    with pytest.warns(UserWarning, match="ignoring the solver book"):
        assert load_book(START, path) == {}
    path.write_text(json.dumps({"format": "mancala-kalah-book", "houses": 4}))
    with pytest.warns(UserWarning, match="other rules"):
        assert load_book(START, path) == {}
    assert load_book(START, tmp_path / "missing.json") == {}


def test_book_paths_name_board_seeds_and_rule():
    assert book_path(GameState.new()).name == "solver-book-h6-s4-std.json"
    assert book_path(GameState.new(empty_capture=True)).name == "solver-book-h6-s4-ec.json"


def test_the_player_plays_the_book_move(monkeypatch):
    state = GameState.new(houses=4, seeds=3)
    key = (4, 3, False)
    monkeypatch.setitem(solver_player._BOOKS, key, {book_key(state): {"value": 0, "best": [3]}})
    player = make_player("solver", seed=1, solver=small_solver())
    assert {player.choose_move(state) for _ in range(5)} == {3}  # the book's, not the search's
    monkeypatch.setitem(solver_player._BOOKS, key, {})
    assert player.choose_move(state) == 1  # the search's only best move


def test_any_first_guess_gives_the_same_exact_value():
    rng = random.Random(5)
    for _ in range(20):
        state = START
        for _ in range(rng.randrange(4)):
            if not state.is_over():
                state = state.play(rng.choice(state.legal_moves()))
        if state.is_over():
            continue
        values = {small_solver().solve(state, False, guess=g)["value"] for g in (-20, -3, 0, 4, 24)}
        assert len(values) == 1


def test_a_build_resumes_from_the_book_on_disk(tmp_path):
    path = tmp_path / "book.json"
    first = build_book(START, path, small_solver(), turns=1, progress=False)
    again = small_solver()
    assert build_book(START, path, again, turns=1, progress=False) == first
    assert again.nodes == 0  # nothing searched again
    more = build_book(START, path, again, progress=False)
    assert set(first) < set(more) and again.nodes > 0


def test_the_first_plies_labels_join_the_book_and_its_players_play_them(
    book, lab_main, tmp_path, monkeypatch
):
    monkeypatch.setenv("MANCALA_CACHE_DIR", str(tmp_path / "cache"))
    labels, path = tmp_path / "plies.jsonl", tmp_path / "book.json"
    small = ("--houses", "4", "--seeds", "3")
    made = lab_main(
        "solve", "labels", *small, "--plies", "3", "--max-seeds", "8", "--out", str(labels)
    )
    assert made.returncode == 0, made.stderr
    save_book(START, {"4,4": {"value": 0, "best": [0]}}, path)  # an entry of its own, kept
    added = lab_main("solve", "book", *small, "--from", str(labels), "--out", str(path))
    assert added.returncode == 0, added.stderr
    grown = load_book(START, path)
    assert grown["4,4"] == {"value": 0, "best": [0]}
    fresh, checked = small_solver(), 0
    for line in FirstPlies(3, START).lines:
        state = replayed(START, line)
        result = fresh.solve(state)
        best = {"value": result["value"] - store_lead(state), "best": sorted(result["best"])}
        assert grown[book_key(state)] == best
        checked += 1
    assert checked > 20 and len(grown) > len(book)
    missing = lab_main("solve", "book", *small, "--from", str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
