"""A person at the terminal: reads a move in the game's own notation (a house letter or
number in Kalah and Sungka, PTN in Tak), re-asks on bad input.

The prompt goes to stdout (Python's `input` writes it to stderr when it reads from a
terminal, so `2>/dev/null` would hide it).
"""

from __future__ import annotations

from collections.abc import Callable

from mancala.ai.base import Player, require_moves
from mancala.game_state import GameState
from mancala.games import Capability, capabilities

LISTED = 20  # the most legal moves a prompt lists; past it, an example


class Quit(Exception):
    """The person asked to stop (typed q)."""


class InputEnded(Quit):
    """The input ended (Ctrl+D, or the end of a piped file) before the game did."""


def read_line(prompt: str) -> str:
    """A line typed by the person after `prompt`, which is written to stdout."""
    print(prompt, end="", flush=True)
    return input()


def parse_move(text: str, state: GameState) -> int:
    """The legal move named by `text` (`state.parse_move`: 'c' or '3' for house 2 of a
    sowing game, PTN such as 'a1' in Tak); ValueError saying why not.

    >>> parse_move("c", GameState.new()), parse_move(" 3 ", GameState.new())
    (2, 2)
    >>> parse_move("g", GameState.new())
    Traceback (most recent call last):
    ...
    mancala.game_state.IllegalMove: no house 'g': houses are a..f or 1..6
    """
    move = state.parse_move(text)
    if move not in state.legal_moves():
        if Capability.SOWING in capabilities(state):
            raise ValueError(f"house {state.move_name(move)} is empty")
        state.play(move)  # raises IllegalMove saying why
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
        while True:
            try:
                text = self.ask(f"Your move ({_choices(state, moves)}, or q to quit): ")
            except EOFError:
                raise InputEnded from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise Quit
            try:
                return parse_move(text, state)
            except ValueError as error:
                self.tell(f"  {error}")


def _choices(state: GameState, moves: list[int]) -> str:
    """The legal moves by name, or, when there are many, how many and an example."""
    if len(moves) <= LISTED:
        return ", ".join(state.move_name(m) for m in moves)
    return f"{len(moves)} legal moves such as {state.move_name(moves[0])}"
