"""A fast Tak engine: the rules of `state.py` compiled with numba on int arrays (perft,
playouts, the searches' moves) and the board facts the evaluation reads (flats, roads,
squares held, roads in one). It agrees with `state.py` move for move
(tests/games/test_tak.py replays random games through both); the action ids are those of
`actions`.

A position is two arrays made by `to_arrays(state)`:

- `meta` (int64): size, ply, komi, white's stones and capstones, black's stones and
  capstones (indices 0..6), then each square's stack height, then each square's top
  kind (0 flat, 1 wall, 2 capstone; -1 when empty).
- `colours` (int8, squares x pieces of both sets): the owner of each piece of each
  stack, bottom first.

`play` changes them in place. `result` is -1 while the game goes on, else one of
WHITE_ROAD, BLACK_ROAD, WHITE_FLATS, BLACK_FLATS, DRAW.

>>> from mancala.games.tak.state import new_tak
>>> meta, colours = to_arrays(new_tak(5))
>>> int(count_moves(meta, colours)), perft(new_tak(5), 3)
(25, 43320)
"""

from __future__ import annotations

import numpy as np

from mancala.core.jit import njit
from mancala.games.tak.actions import num_actions
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.state import Outcome, TakState

SIZE, PLY, KOMI, RESERVES, HEIGHTS = 0, 1, 2, 3, 7  # meta: fields, then the heights
FLAT, WALL, CAP, EMPTY = 0, 1, 2, -1
WHITE_ROAD, BLACK_ROAD, WHITE_FLATS, BLACK_FLATS, DRAW = 0, 1, 2, 3, 4
_KIND_CODES = {"F": FLAT, "S": WALL, "C": CAP}
_FIRST_COLUMN = np.array(  # by board size: the first column's squares as bits
    [sum(1 << (row * n) for row in range(n)) for n in range(9)], np.uint64
)
# (rows, columns) per direction, as `actions.STEPS`: + - > <
_STEPS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)


def to_arrays(state: TakState) -> tuple[np.ndarray, np.ndarray]:
    """(meta, colours) of `state` (see the module text)."""
    squares = state.size * state.size
    stones, caps = PIECES[state.size]
    meta = np.empty(HEIGHTS + 2 * squares, dtype=np.int64)
    meta[SIZE], meta[PLY], meta[KOMI] = state.size, state.ply, state.komi
    meta[RESERVES : RESERVES + 4] = [*state.reserves(0), *state.reserves(1)]
    colours = np.zeros((squares, 2 * (stones + caps)), dtype=np.int8)
    for square, stack in enumerate(state.board):
        meta[HEIGHTS + square] = len(stack)
        meta[HEIGHTS + squares + square] = _KIND_CODES[stack[-1].kind] if stack else EMPTY
        colours[square, : len(stack)] = [piece.player for piece in stack]
    return meta, colours


def outcome_of(code: int, meta: np.ndarray, colours: np.ndarray) -> Outcome | None:
    """The `Outcome` that a `result` code means (None for -1)."""
    if code < 0:
        return None
    flats = (int(flat_count(meta, colours, 0)), int(flat_count(meta, colours, 1)))
    if code == DRAW:
        return Outcome(None, "draw", flats)
    return Outcome(winner_of(code), "road" if code < WHITE_FLATS else "flat", flats)


def winner_of(code: int) -> int | None:
    """Who won by a finished game's `result` code: 0 white, 1 black, None for a draw."""
    return None if code == DRAW else code % 2


def perft(state: TakState, depth: int) -> int:
    """Move sequences of `depth` plies from `state` (a game that ends stops there)."""
    meta, colours = to_arrays(state)
    metas = np.empty((depth + 1, meta.size), dtype=np.int64)
    stacks = np.empty((depth + 1, *colours.shape), dtype=np.int8)
    moves = np.empty((depth + 1, num_actions(state.size)), dtype=np.int64)
    return int(_perft(meta, colours, depth, metas, stacks, moves))


@njit(cache=True, nogil=True)
def _perft(meta, colours, depth, metas, stacks, moves):
    if depth == 0:
        return 1
    if result(meta, colours) >= 0:
        return 0
    n = legal_moves(meta, colours, moves[depth])
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        child, child_colours = metas[depth - 1], stacks[depth - 1]
        child[:] = meta
        child_colours[:] = colours
        play(child, child_colours, moves[depth, i])
        total += _perft(child, child_colours, depth - 1, metas, stacks, moves)
    return total


@njit(cache=True, nogil=True)
def random_game(meta, colours, max_plies, seed):
    """Play random legal moves in place until the game ends or `max_plies` are played;
    the result code (-1 if not over) and the actions played."""
    np.random.seed(seed)
    moves = np.empty(_num_actions(meta[SIZE]), np.int64)
    played = np.empty(max_plies, np.int64)
    for ply in range(max_plies):
        code = result(meta, colours)
        if code >= 0:
            return code, played[:ply]
        n = legal_moves(meta, colours, moves)
        played[ply] = moves[np.random.randint(n)]
        play(meta, colours, played[ply])
    return result(meta, colours), played


@njit(cache=True, nogil=True)
def _num_actions(n_side):
    """`actions.num_actions`, compiled."""
    return 3 * n_side * n_side + 4 * n_side * n_side * (2**n_side - 1)


@njit(cache=True, nogil=True)
def action_square(action, n_side):
    """The square `action` (`actions`' id) places a piece on or moves a stack from."""
    squares = n_side * n_side
    if action < 3 * squares:
        return action // 3
    return (action - 3 * squares) // (2**n_side - 1) // 4


@njit(cache=True, nogil=True)
def _top_colour(meta, colours, square):
    return colours[square, meta[HEIGHTS + square] - 1]


@njit(cache=True, nogil=True)
def count_moves(meta, colours):
    """How many legal moves the player to move has."""
    moves = np.empty(_num_actions(meta[SIZE]), np.int64)
    return legal_moves(meta, colours, moves)


@njit(cache=True, nogil=True)
def legal_moves(meta, colours, out):
    """Write the legal action ids, in increasing order, to `out`; return how many. The
    game must not be over (see `result`)."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    kinds = HEIGHTS + squares
    player = meta[PLY] % 2
    n = 0
    if meta[PLY] < 2:  # the opening: a flat of the opponent's colour on an empty square
        for square in range(squares):
            if meta[HEIGHTS + square] == 0:
                out[n] = square * 3
                n += 1
        return n
    stones, caps = meta[RESERVES + 2 * player], meta[RESERVES + 2 * player + 1]
    for square in range(squares):
        if meta[HEIGHTS + square] == 0:
            if stones > 0:
                out[n] = square * 3
                out[n + 1] = square * 3 + 1
                n += 2
            if caps > 0:
                out[n] = square * 3 + 2
                n += 1
    patterns = 2**n_side - 1
    for square in range(squares):
        height = meta[HEIGHTS + square]
        if height == 0 or _top_colour(meta, colours, square) != player:
            continue
        is_cap = meta[kinds + square] == CAP
        max_carry = min(n_side, height)
        for direction in range(4):
            reach, wall = _reach(meta, square, direction)
            crush = is_cap and wall
            if reach == 0 and not crush:
                continue
            base = 3 * squares + (square * 4 + direction) * patterns - 1
            for pattern in range(1, 2**max_carry):
                if _slide_fits(pattern, reach, crush):
                    out[n] = base + pattern
                    n += 1
    return n


@njit(cache=True, nogil=True)
def is_legal(meta, colours, action):
    """Whether the player to move may play `action` (any integer) in a game going on:
    `legal_moves` asked of one action."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    if action < 0 or action >= _num_actions(n_side):
        return False
    player = meta[PLY] % 2
    if action < 3 * squares:
        square, kind = action // 3, action % 3
        if meta[HEIGHTS + square] != 0:
            return False
        if meta[PLY] < 2:
            return kind == FLAT
        return meta[RESERVES + 2 * player + (1 if kind == CAP else 0)] > 0
    if meta[PLY] < 2:
        return False
    line, pattern = divmod(action - 3 * squares, 2**n_side - 1)
    pattern += 1
    square, direction = line // 4, line % 4
    height = meta[HEIGHTS + square]
    if height == 0 or _top_colour(meta, colours, square) != player:
        return False
    if _bit_length(pattern) > min(n_side, height):
        return False
    reach, wall = _reach(meta, square, direction)
    crush = wall and meta[HEIGHTS + squares + square] == CAP
    return (reach > 0 or crush) and _slide_fits(pattern, reach, crush)


@njit(cache=True, nogil=True)
def _reach(meta, square, direction):
    """(the free squares, empty or flat, from `square` in `direction` before the edge or
    a standing piece; whether that piece is a wall)."""
    n_side = meta[SIZE]
    kinds = HEIGHTS + n_side * n_side
    reach = 0
    r, c = square // n_side + _STEPS[direction, 0], square % n_side + _STEPS[direction, 1]
    while 0 <= r < n_side and 0 <= c < n_side:
        kind = meta[kinds + r * n_side + c]
        if kind == WALL or kind == CAP:
            return reach, kind == WALL
        reach += 1
        r, c = r + _STEPS[direction, 0], c + _STEPS[direction, 1]
    return reach, False


@njit(cache=True, nogil=True)
def _slide_fits(pattern, reach, crush):
    """Whether the drops of `pattern` fit in `reach` free squares, or one square more
    when the capstone alone ends on a wall it may `crush` (flatten)."""
    drops = _popcount(pattern)
    if drops <= reach:
        return True
    top = 1 << (_bit_length(pattern) - 1)
    last_alone = top == 1 or pattern & (top >> 1)
    return crush and drops == reach + 1 and last_alone != 0


@njit(cache=True, nogil=True)
def _popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True, nogil=True)
def _bit_length(x):
    length = 0
    while x:
        x >>= 1
        length += 1
    return length


@njit(cache=True, nogil=True)
def play(meta, colours, action):
    """Play the legal `action` in place (not checked); the kind of the square a slide
    ended on, before it (for `unplay`)."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    kinds = HEIGHTS + squares
    player = meta[PLY] % 2
    if action < 3 * squares:
        square, kind = action // 3, action % 3
        owner = player if meta[PLY] >= 2 else 1 - player
        meta[RESERVES + 2 * owner + (1 if kind == CAP else 0)] -= 1
        colours[square, 0] = owner
        meta[HEIGHTS + square] = 1
        meta[kinds + square] = kind
        meta[PLY] += 1
        return EMPTY
    else:
        line, pattern = divmod(action - 3 * squares, 2**n_side - 1)
        pattern += 1
        source, direction = line // 4, line % 4
        carry = _bit_length(pattern)
        height = meta[HEIGHTS + source] - carry
        moved_kind = meta[kinds + source]
        meta[HEIGHTS + source] = height
        meta[kinds + source] = FLAT if height > 0 else EMPTY
        r = source // n_side + _STEPS[direction, 0]
        c = source % n_side + _STEPS[direction, 1]
        before = meta[kinds + r * n_side + c]
        for i in range(carry):
            target = r * n_side + c
            level = meta[HEIGHTS + target]
            colours[target, level] = colours[source, height + i]
            meta[HEIGHTS + target] = level + 1
            meta[kinds + target] = FLAT  # a wall under the capstone is flattened
            if i == carry - 1:
                meta[kinds + target] = moved_kind
            elif pattern >> i & 1:
                r, c = r + _STEPS[direction, 0], c + _STEPS[direction, 1]
                before = meta[kinds + r * n_side + c]
        meta[PLY] += 1
        return before


@njit(cache=True, nogil=True)
def unplay(meta, colours, action, before):
    """Take back `action`, the last move played, whose `play` returned `before`."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    kinds = HEIGHTS + squares
    meta[PLY] -= 1
    if action < 3 * squares:
        square, kind = action // 3, action % 3
        player = meta[PLY] % 2
        owner = player if meta[PLY] >= 2 else 1 - player
        meta[RESERVES + 2 * owner + (1 if kind == CAP else 0)] += 1
        meta[HEIGHTS + square] = 0
        meta[kinds + square] = EMPTY
        return
    line, pattern = divmod(action - 3 * squares, 2**n_side - 1)
    pattern += 1
    source, direction = line // 4, line % 4
    carry = _bit_length(pattern)
    left = meta[HEIGHTS + source]
    steps = 1 + _popcount(pattern & ((1 << (carry - 1)) - 1))  # squares the slide went
    r = source // n_side + steps * _STEPS[direction, 0]
    c = source % n_side + steps * _STEPS[direction, 1]
    last = r * n_side + c
    meta[kinds + source] = meta[kinds + last]  # the top that moved
    for i in range(carry - 1, -1, -1):  # each piece back, the last dropped first
        target = r * n_side + c
        level = meta[HEIGHTS + target] - 1
        colours[source, left + i] = colours[target, level]
        meta[HEIGHTS + target] = level
        meta[kinds + target] = FLAT if level > 0 else EMPTY
        if i > 0 and pattern >> (i - 1) & 1:  # piece i - 1 was dropped a square back
            r, c = r - _STEPS[direction, 0], c - _STEPS[direction, 1]
    meta[kinds + last] = before
    meta[HEIGHTS + source] = left + carry


@njit(cache=True, nogil=True)
def flat_count(meta, colours, player):
    """Flats of `player` on top of stacks."""
    squares = meta[SIZE] ** 2
    count = 0
    for square in range(squares):
        if meta[HEIGHTS + squares + square] == FLAT:
            count += _top_colour(meta, colours, square) == player
    return count


@njit(cache=True, nogil=True)
def has_road(meta, colours, player):
    """Whether `player`'s flats and capstones on top join two opposite edges."""
    return _spans(road_bits(meta, colours)[player], meta[SIZE])


@njit(cache=True, nogil=True)
def _spans(road, n_side):
    """Whether the squares of the bits `road` join row 0 to the last row or column 0 to
    the last."""
    first_row, last_row, first_column, last_column = edge_bits(n_side)
    for start, end in ((first_row, last_row), (first_column, last_column)):
        if flood(road & start, road, n_side) & end:
            return True
    return False


@njit(cache=True, nogil=True)
def edge_bits(n_side):
    """The squares of the first row, the last row, the first column and the last column
    as bits (square i at bit i)."""
    one, n = np.uint64(1), np.uint64(n_side)
    first_row, first_column = (one << n) - one, _FIRST_COLUMN[n_side]
    return first_row, first_row << (n * (n - one)), first_column, first_column << (n - one)


@njit(cache=True, nogil=True)
def flood(seeds, within, n_side):
    """The squares of the bits `within` joined to the bits `seeds` (a step to a
    neighbour at a time)."""
    one, n = np.uint64(1), np.uint64(n_side)
    _, _, first_column, last_column = edge_bits(n_side)
    reach = seeds & within
    while True:
        grown = reach | (reach << n) | (reach >> n)
        grown |= ((reach << one) & ~first_column) | ((reach >> one) & ~last_column)
        grown &= within
        if grown == reach:
            return reach
        reach = grown


@njit(cache=True, nogil=True)
def count_bits(x):
    """How many bits of the uint64 `x` are set."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True)
def board_bits(n_side):
    """Every square of the board as bits."""
    squares = np.uint64(n_side * n_side)
    return ~np.uint64(0) if squares == 64 else (np.uint64(1) << squares) - np.uint64(1)


@njit(cache=True, nogil=True)
def grow(bits, n_side):
    """The squares of `bits` and their neighbours."""
    one, n = np.uint64(1), np.uint64(n_side)
    _, _, first_column, last_column = edge_bits(n_side)
    grown = bits | (bits << n) | (bits >> n)
    grown |= ((bits << one) & ~first_column) | ((bits >> one) & ~last_column)
    return grown & board_bits(n_side)


@njit(cache=True, nogil=True)
def lines_spanned(bits, n_side):
    """How many ranks and how many files the squares `bits` touch."""
    n = np.uint64(n_side)
    first_row, _, first_column, _ = edge_bits(n_side)
    ranks = files = 0
    for line in range(n_side):
        ranks += (bits & (first_row << (np.uint64(line) * n))) != 0
        files += (bits & (first_column << np.uint64(line))) != 0
    return ranks, files


@njit(cache=True, nogil=True)
def held(flats, caps, walls, n_side):
    """The squares each player holds, (white's, black's) as bits, given the `tops`' flats,
    capstones and walls: a square is held by the only player with a capstone on it or
    next to it, else by the player with more flats next to it, and by nobody next to a
    wall."""
    near = (_flats_near(flats[0], n_side), _flats_near(flats[1], n_side))
    white, black = np.uint64(0), np.uint64(0)
    for level in range(2, -1, -1):  # compare the counts from their highest bit
        open_ = ~(white | black)
        w, b = near[0][level] & open_, near[1][level] & open_
        white |= w & ~b
        black |= b & ~w
    white_cap, black_cap = grow(caps[0], n_side), grow(caps[1], n_side)
    white_cap, black_cap = white_cap & ~black_cap, black_cap & ~white_cap
    free = ~grow(walls, n_side)
    white = (white_cap | (white & ~black_cap)) & free
    black = (black_cap | (black & ~white_cap)) & free
    return white & board_bits(n_side), black & board_bits(n_side)


@njit(cache=True, nogil=True)
def _flats_near(flats, n_side):
    """How many of the bits `flats` are next to each square, as three bits a square
    (the ones, twos and fours of the count, each a uint64)."""
    one, n = np.uint64(1), np.uint64(n_side)
    _, _, first_column, last_column = edge_bits(n_side)
    north, south = (flats << n) & board_bits(n_side), flats >> n
    east, west = (flats << one) & ~first_column, (flats >> one) & ~last_column
    ones_a, twos_a = north ^ south, north & south
    ones_b, twos_b = east ^ west, east & west
    carry = ones_a & ones_b
    twos = twos_a ^ twos_b ^ carry
    fours = (twos_a & twos_b) | (twos_a & carry) | (twos_b & carry)
    return ones_a ^ ones_b, twos, fours


@njit(cache=True, nogil=True)
def tops(meta, colours):
    """The pieces on top as bits: (white's flats, black's), (white's capstones, black's)
    and the walls of both."""
    n_side = meta[SIZE]
    squares = n_side * n_side
    zero = np.uint64(0)
    white_flats, black_flats, white_caps, black_caps, walls = zero, zero, zero, zero, zero
    for square in range(squares):
        kind = meta[HEIGHTS + squares + square]
        if kind == EMPTY:
            continue
        bit = np.uint64(1) << np.uint64(square)
        white = _top_colour(meta, colours, square) == 0
        if kind == WALL:
            walls |= bit
        elif kind == FLAT:
            if white:
                white_flats |= bit
            else:
                black_flats |= bit
        elif white:
            white_caps |= bit
        else:
            black_caps |= bit
    return (white_flats, black_flats), (white_caps, black_caps), walls


@njit(cache=True, nogil=True)
def roads_of(on_top):
    """Each player's road squares (flats and capstones on top), given the `tops`."""
    (white, black), (white_caps, black_caps), _ = on_top
    return white | white_caps, black | black_caps


@njit(cache=True, nogil=True)
def road_bits(meta, colours):
    """Each player's road squares as bits of a uint64, square i at bit i."""
    return roads_of(tops(meta, colours))


@njit(cache=True, nogil=True)
def roads_in_one(on_top, player, n_side):
    """The empty squares where a piece of `player` placed would finish a road, and the
    squares where one of its road pieces next to them, moved there, would (`completions`),
    given the `tops`."""
    (_, _), (white_caps, black_caps), walls = on_top
    roads = roads_of(on_top)
    empty = board_bits(n_side) & ~(roads[0] | roads[1] | walls)
    placed, moved = completions(roads[player], walls | white_caps | black_caps, n_side)
    return placed & empty, moved


@njit(cache=True, nogil=True)
def completions(road, blocked, n_side):
    """The squares where a piece would finish a road of the bits `road` (none of
    `blocked`, the walls and capstones, which no piece covers), and those of them where
    a piece of the road next to them, moved there, would."""
    zero = np.uint64(0)
    if count_bits(road) < n_side - 1:
        return zero, zero  # no road is a piece short
    first_row, last_row, first_column, last_column = edge_bits(n_side)
    one = np.uint64(1)
    joins = zero
    for start, end in ((first_row, last_row), (first_column, last_column)):
        from_start, from_end = flood(road & start, road, n_side), flood(road & end, road, n_side)
        joins |= (start | grow(from_start, n_side)) & (end | grow(from_end, n_side))
    joins &= ~(road | blocked)
    moved = zero
    rest = joins
    while rest:
        square = rest & (~rest + one)
        rest &= ~square
        sources = grow(square, n_side) & road
        while sources:
            source = sources & (~sources + one)
            sources &= ~source
            if _spans((road & ~source) | square, n_side):
                moved |= square
                break
    return joins, moved


@njit(cache=True, nogil=True)
def result(meta, colours):
    """-1 while the game goes on; else how it ended (see the module text)."""
    white_bits, black_bits = road_bits(meta, colours)
    return result_of(meta, colours, white_bits, black_bits)


@njit(cache=True, nogil=True)
def result_of(meta, colours, white_bits, black_bits):
    """`result`, given each player's `road_bits`."""
    white_road, black_road = _spans(white_bits, meta[SIZE]), _spans(black_bits, meta[SIZE])
    if white_road or black_road:
        mover = 1 - meta[PLY] % 2  # a ply making both roads wins for its mover
        if white_road and black_road:
            return WHITE_ROAD if mover == 0 else BLACK_ROAD
        return WHITE_ROAD if white_road else BLACK_ROAD
    squares = meta[SIZE] ** 2
    full = True
    for square in range(squares):
        full = full and meta[HEIGHTS + square] > 0
    out = False
    for player in range(2):
        out = out or meta[RESERVES + 2 * player] + meta[RESERVES + 2 * player + 1] == 0
    if not (full or out):
        return -1
    white = 2 * flat_count(meta, colours, 0)
    black = 2 * flat_count(meta, colours, 1) + meta[KOMI]
    if white == black:
        return DRAW
    return WHITE_FLATS if white > black else BLACK_FLATS
