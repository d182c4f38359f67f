"""Tak's notations: PTN move text (`a1`, `Sb2`, `3c3>12`) and TPS positions.

In TPS white is `1` and black `2`; a board is a tuple of stacks (see `pieces`) indexed
as in `actions` (a1 = 0).

>>> move_name(5, parse_ptn(5, "3c3>111"))
'3c3>111'
>>> move_name(5, parse_ptn(5, "1d3<")), move_name(5, parse_ptn(5, "Fa1"))
('d3<', 'a1')
>>> board, player, ply = parse_tps("x3/x,12S,x/2,x2 1 2")
>>> board[0], board[4], player, ply
((Piece(player=1, kind='F'),), (Piece(player=0, kind='F'), Piece(player=1, kind='S')), 0, 2)
>>> to_tps(3, board, ply)
'x3/x,12S,x/2,x2 1 2'
"""

from __future__ import annotations

import re

from mancala.game_state import IllegalMove
from mancala.games.tak.actions import DIRECTIONS, Move, Place, Shift
from mancala.games.tak.pieces import PIECES, Piece, Stack

FILES = "abcdefgh"
_PLACE = re.compile(r"([FSC]?)([a-h])([1-9])")
_SHIFT = re.compile(r"([0-9]?)([a-h])([1-9])([-+<>])([0-9]*)(\*?)")

MAX_MOVE = 10**9  # the largest TPS move number (the numba engine counts plies in int64)


def square_name(size: int, square: int) -> str:
    """`a1` for square 0."""
    row, column = divmod(square, size)
    return f"{FILES[column]}{row + 1}"


def move_name(size: int, move: Move) -> str:
    """The PTN text of `move`, in its short form (no F, no carry 1, no single drop)."""
    where = square_name(size, move.square)
    if isinstance(move, Place):
        return ("" if move.kind == "F" else move.kind) + where
    carry = str(move.carry) if move.carry > 1 else ""
    drops = "".join(map(str, move.drops)) if len(move.drops) > 1 else ""
    return f"{carry}{where}{DIRECTIONS[move.direction]}{drops}"


def parse_ptn(size: int, text: str) -> Move:
    """The move of PTN `text`; IllegalMove saying why the text is not a move.

    Accepts the short forms (`a1`, `d3<`, `3c3>`) and the marks PTN allows after a move
    (`*` for a flattened wall, `'` and `"` for threats, `!` and `?`)."""
    if not isinstance(text, str):
        raise IllegalMove(f"a PTN move is text, not {text!r}")
    core = text.strip().rstrip("'\"!?")
    if found := _PLACE.fullmatch(core):
        kind, column, row = found.groups()
        return Place(_square(size, column, row, text), kind or "F")
    if found := _SHIFT.fullmatch(core):
        count, column, row, direction, drops, _ = found.groups()
        square = _square(size, column, row, text)
        carry = int(count or 1)
        dropped = tuple(int(d) for d in drops) or (carry,)
        if not 1 <= carry <= size:
            raise IllegalMove(f"{text!r}: a stack move carries 1..{size} pieces")
        if 0 in dropped or sum(dropped) != carry:
            raise IllegalMove(f"{text!r}: the drops must be positive and add up to {carry}")
        return Shift(square, DIRECTIONS.index(direction), dropped)
    raise IllegalMove(f"{text!r} is not a PTN move (such as a1, Sb2, Cc3, d3<, 3c3>12)")


def _square(size: int, column: str, row: str, text: str) -> int:
    square_column, square_row = FILES.index(column), int(row) - 1
    if square_column >= size or square_row >= size:
        raise IllegalMove(f"{text!r}: the square is off the {size}x{size} board")
    return square_row * size + square_column


def to_tps(size: int, board: tuple[Stack, ...], ply: int) -> str:
    """The TPS text of a position (rows from the top rank down, then who moves, the move
    number)."""
    rows = []
    for row in reversed(range(size)):
        cells: list[str] = []
        for stack in board[row * size : (row + 1) * size]:
            if stack:
                cells.append(_stack_text(stack))
            elif cells and cells[-1].startswith("x"):
                cells[-1] = f"x{int(cells[-1][1:] or 1) + 1}"
            else:
                cells.append("x")
        rows.append(",".join(cells))
    return f"{'/'.join(rows)} {ply % 2 + 1} {ply // 2 + 1}"


def _stack_text(stack: Stack) -> str:
    top = stack[-1].kind
    return "".join(str(piece.player + 1) for piece in stack) + ("" if top == "F" else top)


def parse_tps(text: str) -> tuple[tuple[Stack, ...], int, int]:
    """(board, player, ply) of TPS `text`, with or without `[TPS "..."]` around it;
    ValueError saying what is wrong. The board size is the number of rows."""
    if not isinstance(text, str):
        raise ValueError(f"a TPS position is text, not {text!r}")
    body = text.strip()
    if body.startswith("["):
        body = body.removeprefix("[").removesuffix("]").strip().removeprefix("TPS").strip()
    parts = body.strip('"').split()
    if len(parts) != 3:
        raise ValueError(f"TPS has three parts (board, player 1 or 2, move number): {text!r}")
    rows_text, player_text, move_text = parts
    if (
        player_text not in ("1", "2")
        or not move_text.isdigit()
        or not 1 <= int(move_text) <= MAX_MOVE
    ):
        raise ValueError(
            f"TPS: the player is 1 or 2 and the move number 1..{MAX_MOVE:,}: {text[:200]!r}"
        )
    rows = rows_text.split("/")
    size = len(rows)
    if size not in PIECES:
        raise ValueError(f"TPS: a Tak board has 3..8 rows, not {size}: {text!r}")
    board: list[Stack] = []
    for row_text in reversed(rows):
        row = [stack for cell in row_text.split(",") for stack in _cell_stacks(cell, text)]
        if len(row) != size:
            raise ValueError(f"TPS: row {row_text!r} does not have {size} squares")
        board.extend(row)
    player = int(player_text) - 1
    return tuple(board), player, 2 * (int(move_text) - 1) + player


def _cell_stacks(cell: str, text: str) -> list[Stack]:
    if found := re.fullmatch(r"x([1-8]?)", cell):
        return [()] * int(found.group(1) or 1)
    if found := re.fullmatch(r"([12]+)([FSC]?)", cell):
        colours, top = found.groups()
        pieces = [Piece(int(c) - 1, "F") for c in colours]
        pieces[-1] = Piece(pieces[-1].player, top or "F")
        return [tuple(pieces)]
    raise ValueError(f"TPS: {cell!r} is not a square (x, x3, 1, 212S, 12C...) in {text!r}")
