"""The terminal drawing of a Tak position: each square shows its stack from bottom to
top (`w`/`b` for white's and black's pieces, upper case for the top piece, `S` after a
wall, `C` after a capstone), ranks numbered on the left, files lettered underneath,
then whose turn it is (or the result), the flats on top and the pieces left to place.

>>> from mancala.games.tak.state import from_tps
>>> print(from_tps("x5/x4,1/x,12S,x3/2C,x,21,x2/x5 2 4"))
5  .   .    .   .  .
4  .   .    .   .  W
3  .   wBS  .   .  .
2  BC  .    bW  .  .
1  .   .    .   .  .
   a   b    c   d  e
black to move (move 4); flats on top: white 2, black 0
left to place: white 18 stones and 1 capstone, black 19 stones and 0 capstones
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mancala.games.tak.notation import FILES
from mancala.games.tak.pieces import COLOURS, PIECES, Stack

if TYPE_CHECKING:
    from mancala.games.tak.state import TakState


def display(state: TakState) -> dict:
    """What a board display shows beside the protocol: the flats on top (`scores`), each
    square's stack bottom first as [player, kind] pairs (`board`, squares a1, b1, .. as in
    the action encoding), each player's [stones, capstones] left (`reserves`) and how the
    game ended (`result`: road, flat or draw; None while it goes on)."""
    return {
        "scores": list(state.flat_counts()),
        "board": [[[piece.player, piece.kind] for piece in stack] for stack in state.board],
        "reserves": [list(state.reserves(0)), list(state.reserves(1))],
        "result": state.outcome.reason if state.outcome else None,
    }


def stack_text(stack: Stack) -> str:
    """`.` for an empty square; else the colours bottom to top, the top one in capitals
    and followed by S or C when it stands."""
    if not stack:
        return "."
    below = "".join("wb"[piece.player] for piece in stack[:-1])
    top = stack[-1]
    return below + "WB"[top.player] + ("" if top.kind == "F" else top.kind)


def draw(state: TakState) -> str:
    """The board, then the turn (or the result), the flats on top and the reserves."""
    n = state.size
    cells = [stack_text(stack) for stack in state.board]
    widths = [max(len(cells[row * n + column]) for row in range(n)) + 2 for column in range(n)]
    label = len(str(n)) + 2
    lines = []
    for row in reversed(range(n)):
        squares = "".join(cells[row * n + c].ljust(widths[c]) for c in range(n))
        lines.append(f"{row + 1:<{label}}{squares}".rstrip())
    lines.append(" " * label + "".join(FILES[c].ljust(widths[c]) for c in range(n)).rstrip())
    white, black = state.flat_counts()
    lines.append(f"{_status(state)}; flats on top: white {white}, black {black}")
    lines.append(f"left to place: {_reserves(state)}")
    return "\n".join(lines)


def _status(state: TakState) -> str:
    outcome = state.outcome
    if outcome is None:
        return f"{COLOURS[state.player]} to move (move {state.ply // 2 + 1})"
    if outcome.winner is None:
        return "game over: a draw on flats"
    return f"game over: {COLOURS[outcome.winner]} wins by {outcome.reason}"


def _reserves(state: TakState) -> str:
    said = []
    for player in (0, 1):
        stones, caps = state.reserves(player)
        has_caps = PIECES[state.size][1] > 0
        capstones = f" and {caps} capstone{'s' * (caps != 1)}" if has_caps else ""
        said.append(f"{COLOURS[player]} {stones} stones{capstones}")
    return ", ".join(said)
