"""A person at the terminal: reads a house letter or number, re-asks on bad input."""

from __future__ import annotations

from collections.abc import Callable

from mancala.ai.base import Player, require_moves
from mancala.board_art import house_label
from mancala.game_state import GameState


class Quit(Exception):
    """The person asked to stop (typed q, or the input ended)."""


def parse_move(text: str, state: GameState) -> int:
    """The house number named by `text` ('c' or '3' are house 2); ValueError saying why."""
    text = text.strip().lower()
    if not text:
        raise ValueError("type a house letter or number")
    if len(text) == 1 and text.isalpha():
        move = ord(text) - ord("a")
    elif text.isdigit():
        move = int(text) - 1
    else:
        raise ValueError(f"{text!r} is not a house: type a letter or a number")
    last = state.houses - 1
    if not 0 <= move <= last:
        raise ValueError(f"no house {text!r}: houses are a..{house_label(last)} or 1..{last + 1}")
    if move not in state.legal_moves():
        raise ValueError(f"house {house_label(move)} is empty")
    return move


class Human(Player):
    """Asks a person for each move on `ask` (input) and tells errors on `tell` (print)."""

    name = "human"

    def __init__(
        self,
        seed: int | None = None,
        ask: Callable[[str], str] = input,
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
            except (EOFError, KeyboardInterrupt):
                raise Quit from None
            if text.strip().lower() in ("q", "quit", "exit"):
                raise Quit
            try:
                return parse_move(text, state)
            except ValueError as error:
                self.tell(f"  {error}")
