"""The rules of Kalah and Sungka: the specification every other engine must agree with.

Pure Python, readable top to bottom, pinned by the doctests below.

Board layout, for H houses a side: indices 0..H-1 are player 0's houses in sowing
order, H is player 0's store, H+1..2H are player 1's houses in sowing order, 2H+1 is
player 1's store. Sowing goes to increasing index, wrapping round, and skips the
opponent's store. A move is a house number 0..H-1 counted from the mover's own first
house. The opposite of house index i is 2H - i.

Kalah (variant "kalah", default 6 houses of 4 seeds)
----------------------------------------------------
>>> s = GameState.new()
>>> s.board
(4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0)
>>> s.player, s.legal_moves()
(0, [0, 1, 2, 3, 4, 5])

A plain sow: the seeds of house 0 go one by one into the next houses; player 1 moves.

>>> t = s.play(0)
>>> t.board, t.player
((0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0), 1)

Last seed in the mover's own store: the same player moves again.

>>> t = s.play(2)
>>> t.board, t.player
((4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0), 0)

Sowing passes the mover's store and skips the opponent's store (index 13 here):

>>> t = GameState.new(board=(1, 1, 1, 0, 0, 10, 0, 4, 4, 4, 4, 4, 4, 11))
>>> t.play(5).board
(2, 2, 2, 0, 0, 0, 1, 5, 5, 5, 5, 5, 5, 11)

A lap of 13 or more seeds sows the house it started from too; here the last seed falls
into that emptied house, which makes it a capture of the opposite house (index 12):

>>> t = GameState.new(board=(13, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 24))
>>> t.play(0).board
(0, 2, 2, 2, 2, 2, 4, 2, 2, 2, 2, 2, 0, 24)

A capture: the last seed lands in an empty own house, the opposite house holds seeds,
both go to the mover's store.

>>> t = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 3, 4, 8))
>>> t.play(0).board
(0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 4, 8)

No capture when the opposite house is empty: the lone seed stays ...

>>> t = GameState.new(board=(1, 0, 4, 4, 4, 4, 0, 4, 4, 4, 4, 0, 4, 11))
>>> t.play(0).board
(0, 1, 4, 4, 4, 4, 0, 4, 4, 4, 4, 0, 4, 11)

... unless the option empty_capture is set (the rule of the published Kalah solutions):

>>> u = GameState.new(board=t.board, empty_capture=True)
>>> u.play(0).board
(0, 0, 4, 4, 4, 4, 1, 4, 4, 4, 4, 0, 4, 11)

After any move, if either side's houses are all empty the game ends and every seed left
goes to the store of its owner (the end-of-game sweep):

>>> t = GameState.new(board=(0, 0, 0, 0, 0, 1, 20, 1, 1, 1, 0, 0, 0, 24))
>>> end = t.play(5)
>>> end.board, end.is_over(), end.legal_moves(), end.scores(), end.winner()
((0, 0, 0, 0, 0, 0, 21, 0, 0, 0, 0, 0, 0, 27), True, [], (21, 27), 1)

Equal stores at the end: a draw, and winner() is None.

>>> t = GameState.new(board=(0, 0, 0, 0, 0, 1, 23, 0, 0, 0, 0, 0, 1, 23))
>>> d = t.play(5)
>>> d.scores(), d.winner(), d.is_over()
((24, 24), None, True)

Other sizes: any number of houses and seeds.

>>> GameState.new(houses=4, seeds=3).board
(3, 3, 3, 3, 0, 3, 3, 3, 3, 0)

Sungka (variant "sungka", 7 houses of 7 shells, the rules of the Sungka DQN paper)
-------------------------------------------------------------------------------
The head (store) of player 0 is index 7, of player 1 index 15.

>>> g = GameState.new("sungka")
>>> g.board
(7, 7, 7, 7, 7, 7, 7, 0, 7, 7, 7, 7, 7, 7, 7, 0)

Last shell in the mover's head: the mover moves again.

>>> g.play(0).board, g.play(0).player
((0, 8, 8, 8, 8, 8, 8, 1, 7, 7, 7, 7, 7, 7, 7, 0), 0)

Relay sowing: the last shell falls into an occupied house (house 9 here, on either side),
so all its shells are picked up and sowing goes on. Here house 6 sows 7 (the head),
8 and 9; the four shells of 9 are picked up and sown into 10..13; the two of 13 into
14 and (skipping the opponent's head, 15) house 0, which was empty: a sunog.

>>> r = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 3, 40, 0, 3, 0, 0, 0, 1, 0, 51))
>>> r.play(6).board, r.play(6).player
((0, 0, 0, 0, 0, 0, 0, 43, 1, 0, 1, 1, 1, 0, 0, 51), 1)

A turn that ends in an empty house on the opponent's side just passes the turn:

>>> o = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 2, 40, 0, 3, 0, 0, 0, 0, 0, 53))
>>> o.play(6).board, o.play(6).player
((0, 0, 0, 0, 0, 0, 0, 41, 1, 3, 0, 0, 0, 0, 0, 53), 1)

Sunog: the last shell falls into an empty house on the mover's side; that shell and
every shell in the opposite house go to the mover's head, and the turn ends.

>>> k = GameState.new("sungka", board=(1, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 5, 1, 51))
>>> k.play(0).board, k.play(0).player
((0, 0, 0, 0, 0, 0, 0, 46, 0, 0, 0, 0, 0, 0, 1, 51), 1)

A player with no shells in their houses passes: the turn goes straight back. Here
player 1 has none, so player 0 moves again after a move that ends the turn.

>>> p = GameState.new("sungka", board=(2, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0, 0, 0, 0, 0, 56))
>>> q = p.play(0)
>>> q.board, q.player, q.legal_moves()
((0, 1, 0, 0, 0, 0, 0, 41, 0, 0, 0, 0, 0, 0, 0, 56), 0, [1])

The game ends when no house holds a shell; the heads decide.

>>> e = GameState.new("sungka", board=(0, 0, 0, 0, 0, 0, 1, 40, 0, 0, 0, 0, 0, 0, 0, 57))
>>> f = e.play(6)
>>> f.board, f.is_over(), f.legal_moves(), f.scores(), f.winner()
((0, 0, 0, 0, 0, 0, 0, 41, 0, 0, 0, 0, 0, 0, 0, 57), True, [], (41, 57), 1)

Relay sowing could in theory go round forever, so it is bounded by the option
relay_limit (pick-ups in one move, default 10,000). At the bound the turn ends with
every shell where it lies, as if the last one had fallen into an empty house of the
opponent. With relay_limit=1 the relay of the example above stops after one pick-up,
leaving the last shell in house 13:

>>> r1 = GameState.new("sungka", board=r.board, relay_limit=1)
>>> r1.play(6).board, r1.play(6).player
((0, 0, 0, 0, 0, 0, 0, 41, 1, 0, 1, 1, 1, 2, 0, 51), 1)

Illegal moves raise IllegalMove (a ValueError) saying why:

>>> s.play(6)
Traceback (most recent call last):
...
mancala.game_state.IllegalMove: move 6 is out of range: houses are numbered 0..5
>>> s.play(2).play(2)
Traceback (most recent call last):
...
mancala.game_state.IllegalMove: house 2 of player 0 is empty
"""

from __future__ import annotations

from typing import Any, NamedTuple

KALAH, SUNGKA = "kalah", "sungka"  # the variants' names, for code that means one of them
VARIANTS = (KALAH, SUNGKA)
DEFAULTS = {KALAH: {"houses": 6, "seeds": 4}, SUNGKA: {"houses": 7, "seeds": 7}}
RELAY_LIMIT = 10_000


class IllegalMove(ValueError):
    """A move that the rules do not allow in this position; the message says why."""


class GameState(NamedTuple):
    """An immutable, hashable position: the board, whose turn it is, and the rules."""

    variant: str
    board: tuple[int, ...]
    player: int
    houses: int
    seeds: int
    empty_capture: bool = False
    relay_limit: int = RELAY_LIMIT

    # ----- construction -------------------------------------------------------------

    @classmethod
    def new(
        cls,
        variant: str = "kalah",
        board: tuple[int, ...] | list[int] | None = None,
        player: int = 0,
        **options: Any,
    ) -> GameState:
        """The opening of `variant`, or the position `board` with `player` to move.

        Options: houses, seeds (the opening count, which fixes the total), and
        empty_capture (Kalah) or relay_limit (Sungka). Bad arguments raise ValueError.

        >>> GameState.new(board=(1, 2, 3))
        Traceback (most recent call last):
        ...
        ValueError: board has 3 pits; Kalah with 6 houses needs 14
        >>> GameState.new(board=(5,) + (4,) * 13)
        Traceback (most recent call last):
        ...
        ValueError: board holds 57 seeds; Kalah(6,4) has 48
        >>> GameState.new("chess")
        Traceback (most recent call last):
        ...
        ValueError: unknown variant 'chess'; choose one of kalah, sungka
        """
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
        allowed = {"houses", "seeds", "empty_capture" if variant == "kalah" else "relay_limit"}
        unknown = set(options) - allowed
        if unknown:
            raise ValueError(
                f"unknown option(s) {', '.join(sorted(unknown))} for {variant}; "
                f"allowed: {', '.join(sorted(allowed))}"
            )
        houses = _positive_int("houses", options.get("houses", DEFAULTS[variant]["houses"]))
        seeds = _positive_int("seeds", options.get("seeds", DEFAULTS[variant]["seeds"]))
        empty_capture = options.get("empty_capture", False)
        if not isinstance(empty_capture, bool):
            raise ValueError(f"empty_capture must be true or false, not {empty_capture!r}")
        relay_limit = _positive_int("relay_limit", options.get("relay_limit", RELAY_LIMIT))
        if player not in (0, 1) or isinstance(player, bool):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        if board is None:
            side = (seeds,) * houses + (0,)
            board = side + side
        else:
            board = _checked_board(board, variant, houses, seeds)
        state = cls(variant, board, player, houses, seeds, empty_capture, relay_limit)
        if variant == "sungka":
            state = state._with_turn(player, 1 - player)
        return state

    # ----- queries ------------------------------------------------------------------

    def store(self, player: int) -> int:
        """Index of `player`'s store in `board`."""
        return self.houses + player * (self.houses + 1)

    def side(self, player: int) -> tuple[int, ...]:
        """The seeds in `player`'s houses, in sowing order."""
        start = player * (self.houses + 1)
        return self.board[start : start + self.houses]

    def legal_moves(self) -> list[int]:
        """House numbers (0..houses-1, from the mover's first house) that may be played."""
        if self.is_over():
            return []
        return [i for i, seeds in enumerate(self.side(self.player)) if seeds]

    def is_over(self) -> bool:
        """Kalah: either side is empty. Sungka: no house holds a shell."""
        empty0, empty1 = not any(self.side(0)), not any(self.side(1))
        if self.variant == "kalah":
            return empty0 or empty1
        return empty0 and empty1

    def scores(self) -> tuple[int, int]:
        """Seeds in each store; when the game is over, after the end-of-game sweep."""
        score0, score1 = self.board[self.store(0)], self.board[self.store(1)]
        if self.is_over():
            score0, score1 = score0 + sum(self.side(0)), score1 + sum(self.side(1))
        return score0, score1

    def winner(self) -> int | None:
        """0 or 1 when the game is over and someone has more seeds; else None."""
        if not self.is_over():
            return None
        score0, score1 = self.scores()
        return None if score0 == score1 else int(score1 > score0)

    # ----- the move ------------------------------------------------------------------

    def play(self, move: int) -> GameState:
        """The position after the player to move plays house `move`."""
        self._check_move(move)
        if self.variant == "kalah":
            return self._play_kalah(move)
        return self._play_sungka(move)

    def _check_move(self, move: object) -> None:
        if self.is_over():
            raise IllegalMove("the game is over: no move can be played")
        if isinstance(move, bool) or not isinstance(move, int):
            raise IllegalMove(f"a move is a house number, not {move!r}")
        if not 0 <= move < self.houses:
            raise IllegalMove(
                f"move {move} is out of range: houses are numbered 0..{self.houses - 1}"
            )
        if not self.side(self.player)[move]:
            raise IllegalMove(f"house {move} of player {self.player} is empty")

    def _sow(self, board: list[int], pit: int) -> int:
        """Sow every seed of `pit` onward, skipping the opponent's store; the last pit."""
        skip = self.store(1 - self.player)
        seeds, board[pit] = board[pit], 0
        while seeds:
            pit = (pit + 1) % len(board)
            if pit != skip:
                board[pit] += 1
                seeds -= 1
        return pit

    def _play_kalah(self, move: int) -> GameState:
        me, h = self.player, self.houses
        board = list(self.board)
        last = self._sow(board, move + me * (h + 1))
        mine = me * (h + 1) <= last < me * (h + 1) + h
        if mine and board[last] == 1:
            opposite = 2 * h - last
            if board[opposite] or self.empty_capture:
                board[self.store(me)] += board[last] + board[opposite]
                board[last] = board[opposite] = 0
        nxt = me if last == self.store(me) else 1 - me
        state = self._replace(board=tuple(board), player=nxt)
        if state.is_over():  # the end-of-game sweep
            swept = [0] * len(board)
            swept[h], swept[2 * h + 1] = state.scores()
            state = state._replace(board=tuple(swept))
        return state

    def _play_sungka(self, move: int) -> GameState:
        me, h = self.player, self.houses
        board = list(self.board)
        pit = move + me * (h + 1)
        pickups = 0
        while True:
            last = self._sow(board, pit)
            if last == self.store(me):  # in the mover's head: move again
                return self._replace(board=tuple(board))._with_turn(me, 1 - me)
            if board[last] > 1 and pickups < self.relay_limit:  # relay sowing
                pit, pickups = last, pickups + 1
                continue
            mine = me * (h + 1) <= last < me * (h + 1) + h
            if board[last] == 1 and mine:  # sunog
                opposite = 2 * h - last
                board[self.store(me)] += board[last] + board[opposite]
                board[last] = board[opposite] = 0
            return self._replace(board=tuple(board))._with_turn(1 - me, me)

    def _with_turn(self, wanted: int, other: int) -> GameState:
        """Sungka: the turn goes to `wanted`, or to `other` if `wanted` has to pass."""
        if any(self.side(wanted)) or not any(self.side(other)):
            return self._replace(player=wanted)
        return self._replace(player=other)

    # ----- serialisation and display -------------------------------------------------

    @property
    def game(self) -> str:
        """The game's name in the registry of games (`mancala.games`): the variant."""
        return self.variant

    @property
    def options(self) -> dict[str, Any]:
        """The rule options, JSON-safe, as `GameState.new` takes them.

        >>> GameState.new("sungka").options
        {'houses': 7, 'seeds': 7}
        """
        opts: dict[str, Any] = {"houses": self.houses, "seeds": self.seeds}
        if self.variant == "kalah":
            opts["empty_capture"] = self.empty_capture
        elif self.relay_limit != RELAY_LIMIT:
            opts["relay_limit"] = self.relay_limit
        return opts

    @property
    def num_actions(self) -> int:
        """Moves are house numbers in range(num_actions)."""
        return self.houses

    def move_name(self, move: int) -> str:
        """The house letter of `move` (house 0 is 'a'; past the sixteenth, its number).

        >>> s = GameState.new()
        >>> s.move_name(2), s.parse_move("c"), s.parse_move(" 3 ")
        ('c', 2, 2)
        """
        # imported here, not above: mancala.games, the package of the drawing, imports
        # this module (the drawing itself imports nothing of the rules)
        from mancala.games.sowing.drawing import house_label

        return house_label(move)

    def parse_move(self, text: str) -> int:
        """The house named by `text` (a letter or a number from 1); IllegalMove when no
        house of this board has that name (`play` checks that it may be played)."""
        return parse_house(text, self.houses)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict; `GameState.from_dict` turns it back into an equal state.

        >>> s = GameState.new(houses=4, seeds=3).play(1)
        >>> s.to_dict()  # doctest: +NORMALIZE_WHITESPACE
        {'variant': 'kalah', 'board': [3, 0, 4, 4, 1, 3, 3, 3, 3, 0], 'player': 0,
         'options': {'houses': 4, 'seeds': 3, 'empty_capture': False}}
        >>> GameState.from_dict(s.to_dict()) == s
        True
        """
        return {
            "variant": self.variant,
            "board": list(self.board),
            "player": self.player,
            "options": dict(self.options),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """The state described by `data` (as made by `to_dict`); ValueError if malformed."""
        if not isinstance(data, dict):
            raise ValueError(f"a game state is a JSON object, not {type(data).__name__}")
        unknown = set(data) - {"variant", "board", "player", "options"}
        if unknown:
            raise ValueError(f"unknown key(s) in game state: {', '.join(sorted(unknown))}")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise ValueError("options must be a JSON object")
        if "board" not in data:
            raise ValueError("a game state needs a board")
        variant, player = data.get("variant", "kalah"), data.get("player", 0)
        return cls.new(variant, data["board"], player, **options)

    def __str__(self) -> str:
        from mancala.games.sowing.drawing import draw_board

        return draw_board(self)


def parse_house(text: str, houses: int) -> int:
    """The house number named by `text` ('c' or '3' are house 2) on a side of `houses`;
    IllegalMove saying why when no house has that name.

    >>> parse_house("c", 6), parse_house(" 3 ", 6)
    (2, 2)
    >>> parse_house("g", 6)
    Traceback (most recent call last):
    ...
    mancala.game_state.IllegalMove: no house 'g': houses are a..f or 1..6
    """
    from mancala.games.sowing.drawing import LETTERS, house_choices

    if not isinstance(text, str):
        raise IllegalMove(f"a house is named by text, not {text!r}")
    text = text.strip().lower()
    if not text:
        raise IllegalMove("type a house letter or number")
    if len(text) == 1 and text.isalpha():
        move = LETTERS.index(text) if text in LETTERS else houses
    elif text.isdigit() and text.isascii():
        move = int(text) - 1
    else:
        raise IllegalMove(f"{text!r} is not a house: type a letter or a number")
    if not 0 <= move < houses:
        raise IllegalMove(f"no house {text!r}: houses are {house_choices(houses)}")
    return move


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive whole number, not {value!r}")
    return value


def _checked_board(board: Any, variant: str, houses: int, seeds: int) -> tuple[int, ...]:
    """`board` as a tuple, after checking its length, counts and total."""
    if isinstance(board, (str, bytes)) or not hasattr(board, "__len__"):
        raise ValueError(f"board must be a list of seed counts, not {board!r}")
    name = variant.capitalize()
    if len(board) != 2 * houses + 2:
        raise ValueError(
            f"board has {len(board)} pits; {name} with {houses} houses needs {2 * houses + 2}"
        )
    for count in board:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"board counts must be non-negative whole numbers, not {count!r}")
    if sum(board) != 2 * houses * seeds:
        raise ValueError(
            f"board holds {sum(board)} seeds; {name}({houses},{seeds}) has {2 * houses * seeds}"
        )
    return tuple(board)
