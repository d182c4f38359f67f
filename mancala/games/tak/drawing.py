"""The terminal drawing of a Tak position: each square shows its stack from bottom to
top (`w`/`b` for white's and black's pieces, upper case for the top piece, `S` after a
wall, `C` after a capstone), ranks numbered on the left, files lettered underneath,
then whose turn it is and the pieces each player has left.

>>> from mancala.games.tak.state import from_tps
>>> print(from_tps("x5/x4,1/x,12S,x3/2C,x,21,x2/x5 2 4"))
5  .    .    .    .    .
4  .    .    .    .    W
3  .    wBS  .    .    .
2  BC   .    bW   .    .
1  .    .    .    .    .
   a    b    c    d    e
black to move (move 4); white has 18 stones and 1 capstone, black has 19 stones and 0
capstones; flats 2-0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mancala.games.tak.notation import FILES
from mancala.games.tak.pieces import COLOURS, PIECES, Stack

if TYPE_CHECKING:
    from mancala.games.tak.state import TakState


def stack_text(stack: Stack) -> str:
    """`.` for an empty square; else the colours bottom to top, the top one in capitals
    and followed by S or C when it stands."""
    if not stack:
        return "."
    below = "".join("wb"[piece.player] for piece in stack[:-1])
    top = stack[-1]
    return below + "WB"[top.player] + ("" if top.kind == "F" else top.kind)


def draw(state: TakState) -> str:
    """The board, then the turn (or the result), the reserves and the flat counts."""
    n = state.size
    cells = [stack_text(stack) for stack in state.board]
    width = max(3, *map(len, cells)) + 2
    label = len(str(n)) + 2
    lines = []
    for row in reversed(range(n)):
        squares = "".join(cell.ljust(width) for cell in cells[row * n : (row + 1) * n])
        lines.append(f"{row + 1:<{label}}{squares}".rstrip())
    lines.append(" " * label + "".join(f.ljust(width) for f in FILES[:n]).rstrip())
    lines.append(
        f"{_status(state)}; {_reserves(state)}; flats {'-'.join(map(str, state.flat_counts()))}"
    )
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
        said.append(f"{COLOURS[player]} has {stones} stones{capstones}")
    return ", ".join(said)
