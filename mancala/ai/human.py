"""A person at the terminal: reads a house letter or number, re-asks on bad input.

The prompt goes to stdout (Python's `input` writes it to stderr when it reads from a
terminal, so `2>/dev/null` would hide it).
"""

from __future__ import annotations

from collections.abc import Callable

from mancala.ai.base import Player, require_moves
from mancala.board_art import LETTERS, house_choices, house_label
from mancala.game_state import GameState


class Quit(Exception):
    """The person asked to stop (typed q)."""


class InputEnded(Quit):
    """The input ended (Ctrl+D, or the end of a piped file) before the game did."""


def read_line(prompt: str) -> str:
    """A line typed by the person after `prompt`, which is written to stdout."""
    print(prompt, end="", flush=True)
    return input()


def parse_move(text: str, state: GameState) -> int:
    """The house number named by `text` ('c' or '3' are house 2); ValueError saying why.

    >>> parse_move("c", GameState.new()), parse_move(" 3 ", GameState.new())
    (2, 2)
    >>> parse_move("g", GameState.new())
    Traceback (most recent call last):
    ...
    ValueError: no house 'g': houses are a..f or 1..6
    """
    text = text.strip().lower()
    if not text:
        raise ValueError("type a house letter or number")
    if len(text) == 1 and text.isalpha():
        move = LETTERS.index(text) if text in LETTERS else state.houses
    elif text.isdigit():
        move = int(text) - 1
    else:
        raise ValueError(f"{text!r} is not a house: type a letter or a number")
    if not 0 <= move < state.houses:
        raise ValueError(f"no house {text!r}: houses are {house_choices(state.houses)}")
    if move not in state.legal_moves():
        raise ValueError(f"house {house_label(move)} is empty")
    return move


class Human(Player):
    """Asks a person for each move on `ask` (`read_line`) and tells errors on `tell` (print)."""

    name = "human"

    def __init__(
        self,
        seed: int | None = None,
        ask: Callable[[str], str] = read_line,
        tell: Callable[[str], None] = print,
    ) -> None:
        super().__init__(seed)
        self.ask, self.tell = ask, tell

    def choose_move(self, state: GameState) -> int:
        moves = require_moves(state)
        letters = ", ".join(house_label(m) for m in moves)
        while True:
            try:
                text = self.ask(f"Your move ({letters}, or q to quit): ")
            except EOFError:
                raise InputEnded from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise Quit
            try:
                return parse_move(text, state)
            except ValueError as error:
                self.tell(f"  {error}")
