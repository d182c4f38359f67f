"""What a move did (mancala.games.sowing.events), and the terminal game naming it."""

from mancala.commands.play import play_terminal
from mancala.game_state import GameState
from mancala.games.sowing.events import MoveEvents, move_events, trace_move


def test_kalah_events():
    opening = GameState.new()
    assert move_events(opening, 2) == MoveEvents(extra_turn=True)
    assert move_events(opening, 0) == MoveEvents()
    capture = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8))
    assert move_events(capture, 0).words() == ["capture 4"]  # the lone seed and 3 opposite
    lap = GameState.new(board=(13, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 24))
    assert move_events(lap, 0).capture == 3  # the house it left, refilled, takes 2 opposite
    lone = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 0, 4, 11))
    assert move_events(lone, 0).capture == 0
    assert move_events(lone._replace(empty_capture=True), 0).capture == 1


def test_a_last_seed_in_the_store_that_ends_the_game_is_no_extra_turn():
    end = GameState.new(board=(0, 0, 0, 0, 0, 1, 20, 1, 1, 1, 0, 0, 0, 24))
    seen = trace_move(end, 5)
    assert seen.after.is_over() and seen.events == MoveEvents()


def test_sungka_events():
    relay = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 3, 40, 0, 3, 0, 0, 0, 1, 0, 51))
    assert move_events(relay, 6) == MoveEvents(capture=2, pickups=2)
    head = GameState.new("sungka")
    assert move_events(head, 0).words() == ["extra turn"]
    alone = GameState.new("sungka", board=(2, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 56))
    assert move_events(alone, 0).words() == [  # a sunog of the lone shell, then a pass
        "capture 1",
        "the opponent has no move: another turn",
    ]


def test_the_terminal_game_names_captures_and_extra_turns():
    start = GameState.new(board=(1, 0, 0, 0, 0, 1, 20, 1, 0, 0, 0, 3, 0, 22))
    said: list[str] = []
    answers = iter(["f", "a"])  # f: its last seed in the store; a: a capture of 1 + 3
    end = play_terminal("greedy", start, ask=lambda _: next(answers), tell=said.append, seed=0)
    text = "\n".join(said)
    assert "You play f, extra turn." in text and "You move again." in text
    assert "You play a, capture 4." in text
    assert "stores: greedy left, you right" in text
    assert end.is_over()
