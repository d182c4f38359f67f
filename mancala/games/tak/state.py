"""The rules of Tak (US Tak Association), readable: the specification the fast engine
(`fast.py`) is checked against.

A `TakState` is a board of stacks, the ply number (whose turn follows from it: white, 0,
moves on even plies) and the rules (size, komi). Moves are action ids (see `actions`);
`move_name` and `parse_move` speak PTN.

>>> s = new_tak(5)
>>> s.legal_moves()[:3], len(s.legal_moves())  # the first ply places a black flat
([0, 3, 6], 25)
>>> s = s.play(s.parse_move("a1")).play(s.parse_move("e5"))
>>> s.board[0], s.player, s.reserves(1)
((Piece(player=1, kind='F'),), 0, (20, 1))
>>> s.play(s.parse_move("a1+"))
Traceback (most recent call last):
...
mancala.game_state.IllegalMove: a1+: a1 is controlled by black
>>> for text in ["b1", "a3", "b2", "a4", "b3", "a5", "b4", "Sc4", "b5"]:
...     s = s.play(s.parse_move(text))
>>> s.is_over(), s.winner(), s.outcome
(True, 0, Outcome(winner=0, reason='road', flats=(6, 4)))
>>> s.to_tps()
'2,1,x2,1/2,1,2S,x2/2,1,x3/x,1,x3/2,1,x3 2 6'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import Any, ClassVar, NamedTuple

from mancala.game_state import IllegalMove
from mancala.games.tak import actions
from mancala.games.tak.actions import KINDS, STEPS, Move, Place, Shift
from mancala.games.tak.notation import move_name, parse_ptn, parse_tps, to_tps
from mancala.games.tak.pieces import COLOURS, PIECES, Piece, Stack


class Outcome(NamedTuple):
    """How a game ended: the winner (None for a draw), the reason (road, flat or draw)
    and the flats on top of stacks, white's and black's (komi not added)."""

    winner: int | None
    reason: str
    flats: tuple[int, int]


@dataclass(frozen=True)
class TakState:
    """An immutable, hashable Tak position."""

    size: int
    komi: int  # half points added to black's flat count
    board: tuple[Stack, ...]
    ply: int  # plies played; white moves on even plies

    game: ClassVar[str] = "tak"

    # ----- the position ----------------------------------------------------------

    @property
    def player(self) -> int:
        """0 (white) or 1 (black): whose turn it is."""
        return self.ply % 2

    @property
    def options(self) -> dict[str, int]:
        """The rule options, as `new_tak` takes them."""
        return {"size": self.size, "komi": self.komi}

    @property
    def num_actions(self) -> int:
        """Action ids of this board size: moves are in range(num_actions)."""
        return actions.num_actions(self.size)

    def reserves(self, player: int) -> tuple[int, int]:
        """(stones, capstones) that `player` has not placed yet."""
        stones, caps = PIECES[self.size]
        for stack in self.board:
            for piece in stack:
                if piece.player == player:
                    stones, caps = (stones, caps - 1) if piece.kind == "C" else (stones - 1, caps)
        return stones, caps

    def flat_counts(self) -> tuple[int, int]:
        """Flats on top of stacks: white's, black's."""
        tops = [stack[-1] for stack in self.board if stack and stack[-1].kind == "F"]
        return sum(top.player == 0 for top in tops), sum(top.player == 1 for top in tops)

    # ----- the end -----------------------------------------------------------------

    @cached_property
    def outcome(self) -> Outcome | None:
        """None while the game goes on. A road wins (a ply making roads for both wins for
        its mover); else a full board or a player out of pieces ends it on flats, komi
        added to black's."""
        flats = self.flat_counts()
        roads = [self.has_road(0), self.has_road(1)]
        if any(roads):
            mover = 1 - self.player
            return Outcome(mover if roads[mover] else 1 - mover, "road", flats)
        out_of_pieces = any(self.reserves(p) == (0, 0) for p in (0, 1))
        if not (out_of_pieces or all(self.board)):
            return None
        white, black = 2 * flats[0], 2 * flats[1] + self.komi
        if white == black:
            return Outcome(None, "draw", flats)
        return Outcome(int(black > white), "flat", flats)

    def road_squares(self, player: int) -> set[int]:
        """The squares whose top piece is `player`'s flat or capstone."""
        return {
            sq for sq, stack in enumerate(self.board) if stack and _is_road_piece(stack, player)
        }

    def has_road(self, player: int) -> bool:
        """Whether `player`'s flats and capstones on top join two opposite edges."""
        return self.joins_edges(self.road_squares(player))

    def joins_edges(self, road: set[int]) -> bool:
        """Whether the squares `road` join two opposite edges of the board."""
        n = self.size
        bottom_to_top = self._joined(
            road, {sq for sq in road if sq < n}, lambda sq: sq >= n * n - n
        )
        left_to_right = self._joined(
            road, {sq for sq in road if sq % n == 0}, lambda sq: sq % n == n - 1
        )
        return bottom_to_top or left_to_right

    def _joined(self, road: set[int], start: set[int], is_goal: Callable[[int], bool]) -> bool:
        """Whether a chain of `road` squares leads from `start` to a goal square."""
        seen, frontier = set(start), list(start)
        while frontier:
            square = frontier.pop()
            if is_goal(square):
                return True
            for next_square in self.neighbours(square):
                if next_square in road and next_square not in seen:
                    seen.add(next_square)
                    frontier.append(next_square)
        return False

    def neighbours(self, square: int) -> list[int]:
        """The squares next to `square`, across an edge, on the board."""
        return [sq for d in range(4) if (sq := self._step(square, d)) is not None]

    def _step(self, square: int, direction: int) -> int | None:
        """The square next to `square` in `direction`, None off the board."""
        row, column = divmod(square, self.size)
        row, column = row + STEPS[direction][0], column + STEPS[direction][1]
        if 0 <= row < self.size and 0 <= column < self.size:
            return row * self.size + column
        return None

    def is_over(self) -> bool:
        """Whether the game has ended (a road, a full board or a player out of pieces)."""
        return self.outcome is not None

    def winner(self) -> int | None:
        """0 or 1 when the game is over and someone won; else None (a draw or not over)."""
        return self.outcome.winner if self.outcome else None

    # ----- the moves ---------------------------------------------------------------

    def legal_moves(self) -> list[int]:
        """The action ids the player to move may play, in increasing order."""
        if self.is_over():
            return []
        legal = [m for m in self._candidates() if self._problem(m) is None]
        return sorted(actions.encode(self.size, m) for m in legal)

    def _candidates(self) -> list[Move]:
        """Every placement on an empty square and every stack move from a stack of the
        player to move that stays on the board; `_problem` decides which are legal."""
        moves: list[Move] = [
            Place(sq, kind) for sq, stack in enumerate(self.board) if not stack for kind in KINDS
        ]
        for square, stack in enumerate(self.board):
            if stack and stack[-1].player == self.player:
                for direction in range(4):
                    room = len(self.path(square, direction))
                    for carry in range(1, min(self.size, len(stack)) + 1):
                        moves += [Shift(square, direction, d) for d in _splits(carry, room)]
        return moves

    def path(self, square: int, direction: int) -> list[int]:
        """The squares from `square` to the edge in `direction`, nearest first."""
        path = []
        while (square := self._step(square, direction)) is not None:
            path.append(square)
        return path

    def _problem(self, move: Move) -> str | None:
        """Why `move` is illegal here, or None when it is legal."""
        if isinstance(move, Place):
            return self._placement_problem(move)
        return self._shift_problem(move)

    def _placement_problem(self, move: Place) -> str | None:
        where = self._name(move.square)
        if self.board[move.square]:
            return f"{where} is not empty"
        if self.ply < 2:
            if move.kind != "F":
                return "each player's first ply places a flat (of the opponent's colour)"
            return None
        stones, caps = self.reserves(self.player)
        if move.kind == "C" and not caps:
            return f"{COLOURS[self.player]} has no capstone left"
        if move.kind != "C" and not stones:
            return f"{COLOURS[self.player]} has no stone left"
        return None

    def _shift_problem(self, move: Shift) -> str | None:
        stack, where = self.board[move.square], self._name(move.square)
        if self.ply < 2:
            return "no stack moves in the first two plies: each places a flat"
        if not stack:
            return f"{where} is empty"
        if stack[-1].player != self.player:
            return f"{where} is controlled by {COLOURS[stack[-1].player]}"
        if move.carry > len(stack):
            return f"{where} holds only {len(stack)} piece(s), not {move.carry}"
        path = self.path(move.square, move.direction)
        if len(move.drops) > len(path):
            return "the move runs off the board"
        mover = stack[-1]
        for i, square in enumerate(path[: len(move.drops)]):
            top = self.board[square][-1] if self.board[square] else None
            if top is None or top.kind == "F":
                continue
            last_alone = i == len(move.drops) - 1 and move.drops[-1] == 1
            if top.kind == "S" and mover.kind == "C" and last_alone:
                continue  # a capstone moving alone as the last drop flattens a wall
            wall = "wall" if top.kind == "S" else "capstone"
            return f"nothing moves onto the {wall} on {self._name(square)}"
        return None

    def _name(self, square: int) -> str:
        return move_name(self.size, Place(square, "F"))

    def play(self, move: int) -> TakState:
        """The position after the player to move plays action `move`; IllegalMove if not
        allowed (the message says why)."""
        if self.is_over():
            raise IllegalMove("the game is over")
        try:
            decoded = actions.decode(self.size, move)
        except ValueError as error:
            raise IllegalMove(str(error)) from None
        problem = self._problem(decoded)
        if problem:
            raise IllegalMove(f"{move_name(self.size, decoded)}: {problem}")
        board = list(self.board)
        if isinstance(decoded, Place):
            owner = self.player if self.ply >= 2 else 1 - self.player  # the swap opening
            board[decoded.square] = (Piece(owner, decoded.kind),)
        else:
            self._spread(board, decoded)
        return TakState(self.size, self.komi, tuple(board), self.ply + 1)

    def _spread(self, board: list[Stack], move: Shift) -> None:
        """Lift the carried pieces and drop them along the path (flattening a wall)."""
        stack = board[move.square]
        carried, board[move.square] = stack[-move.carry :], stack[: -move.carry]
        for square, drop in zip(self.path(move.square, move.direction), move.drops):
            target = board[square]
            if target and target[-1].kind == "S":
                target = (*target[:-1], Piece(target[-1].player, "F"))
            board[square], carried = target + carried[:drop], carried[drop:]

    # ----- notation and storage --------------------------------------------------------

    def move_name(self, move: int) -> str:
        """The PTN of action `move` (legal here or not)."""
        return move_name(self.size, actions.decode(self.size, move))

    def parse_move(self, text: str) -> int:
        """The action id of PTN `text` (not checked for legality here: `play` does that);
        IllegalMove when the text is not a move on this board."""
        return actions.encode(self.size, parse_ptn(self.size, text))

    def to_tps(self) -> str:
        """The position in TPS (without the komi, which TPS does not hold)."""
        return to_tps(self.size, self.board, self.ply)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: `state_from_dict` turns it back into an equal state."""
        return {"game": self.game, "options": self.options, "tps": self.to_tps()}

    def __str__(self) -> str:
        from mancala.games.tak.drawing import draw

        return draw(self)


def _is_road_piece(stack: Stack, player: int) -> bool:
    return stack[-1].player == player and stack[-1].kind != "S"


def _splits(carry: int, room: int) -> list[tuple[int, ...]]:
    """Every way to drop `carry` pieces on at most `room` squares, at least one on each."""
    splits = []
    for cuts in product((False, True), repeat=carry - 1):
        drops, count = [], 1
        for cut in cuts:
            if cut:
                drops.append(count)
                count = 0
            count += 1
        drops.append(count)
        if len(drops) <= room:
            splits.append(tuple(drops))
    return splits


def new_tak(size: int = 5, komi: int = 0) -> TakState:
    """The opening position of a `size` x `size` game (3..8); komi in half points."""
    return _checked(TakState(_size(size), _komi(komi), ((),) * (size * size), 0))


def from_tps(text: str, komi: int = 0) -> TakState:
    """The position of TPS `text`; ValueError saying what is wrong."""
    board, player, ply = parse_tps(text)
    size = _size(round(len(board) ** 0.5))
    return _checked(TakState(size, _komi(komi), board, ply))


def state_from_dict(data: dict[str, Any]) -> TakState:
    """The state `TakState.to_dict` described; ValueError if malformed."""
    if not isinstance(data, dict) or set(data) != {"game", "options", "tps"}:
        raise ValueError("a Tak state is a JSON object with game, options and tps")
    options = data["options"]
    if data["game"] != "tak" or not isinstance(options, dict) or set(options) != {"size", "komi"}:
        raise ValueError("a Tak state has game 'tak' and options size and komi")
    state = from_tps(data["tps"], options["komi"])
    if state.size != options["size"]:
        raise ValueError(f"the TPS board is {state.size}x{state.size}, not size {options['size']}")
    return state


def _size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or size not in PIECES:
        raise ValueError(f"a Tak board has size 3..8, not {size!r}")
    return size


def _komi(komi: Any) -> int:
    if isinstance(komi, bool) or not isinstance(komi, int) or abs(komi) > 2 * 64:
        raise ValueError(f"komi is a whole number of half points (-128..128), not {komi!r}")
    return komi


def _checked(state: TakState) -> TakState:
    """`state`, if its pieces can exist: walls and capstones only on top, no more pieces
    than the set has."""
    for square, stack in enumerate(state.board):
        if any(piece.kind != "F" for piece in stack[:-1]):
            raise ValueError(f"{state._name(square)}: only a stack's top piece can stand")
    for player in (0, 1):
        stones, caps = state.reserves(player)
        if stones < 0 or caps < 0:
            raise ValueError(f"{COLOURS[player]} has more pieces on the board than the set")
    return state
