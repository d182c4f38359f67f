"""The game protocol and the registry of games.

    >>> from mancala.games import new_game, game_names
    >>> game_names()
    ['kalah', 'sungka', 'tak']
    >>> s = new_game("tak", size=5)
    >>> s.game, s.options, s.player
    ('tak', {'size': 5, 'komi': 0}, 0)
    >>> t = s.play(s.parse_move("a1"))
    >>> state_from_dict(t.to_dict()) == t, t.move_name(t.legal_moves()[0])
    (True, 'b1')
    >>> k = new_game("kalah", houses=4)
    >>> k.play(k.parse_move("b")).to_dict()  # doctest: +NORMALIZE_WHITESPACE
    {'variant': 'kalah', 'board': [4, 0, 5, 5, 1, 5, 4, 4, 4, 0], 'player': 1,
     'options': {'houses': 4, 'seeds': 4, 'empty_capture': False}}

Every state of every game offers (see docs/architecture.md, "The game protocol"): `game` (the name
here), `options` (the rule options, as `new_game` takes them), `player` (0 or 1 to move),
`num_actions` (moves are action ids in `range(num_actions)`), `legal_moves()`,
`play(move)` (a new state; `IllegalMove`, a ValueError, says why not), `is_over()`,
`winner()` (0, 1, or None for a draw or a game going on), `move_name(move)`,
`parse_move(text)`, `to_dict()` (read back by `state_from_dict`) and `str(state)` (the
drawing). States are immutable and hashable. `tests/games/test_game_protocol.py` checks all of
it for every game below.

A game may offer more, named by its capabilities, which players and commands check:

- `sowing`: a Kalah-like board (`board`, `houses`, `side`, `scores`) with the numba
  kernels of `mancala.games.sowing.engine` (the fast minimax, mcts and nmcts, the
  sowing heuristics);
- `fast`: a numba engine of its own (Tak: `mancala.games.tak.fast`);
- `encoders`: network encoders in `mancala.nn_lib`;
- `solver`: the exact solver and its endgame database (`mancala.games.sowing.solver`);
- `frames`: seed-by-seed animation of a move (`mancala.games.sowing.events.trace_move`);
- `margin`: a finished game has a margin (seeds in the stores) beside its result;
- `tei`: its moves are spoken over the Tak Engine Interface (`mancala.ai.tei`);
- `openspiel`: OpenSpiel plays it too (its standard board: `mancala.ai.openspiel_mcts`);
- `stacks`: a move places a piece or moves a stack (Tak: the `weighted` and `sarsa`
  players).

A line also states the rule options its commands take (`options`: `--houses`, `--size`,
..., read by `mancala.games.options`), its kernel adapter for the tree searches
(`kernel`: see `mancala.games.search_kernel`), its training examples (`examples`: see
`example_builders`), the fixed players of its learning runs, the depth of the main job's
teacher, the node pool a second of az's timed search and how its fixed opening sets are
drawn.

Adding a game is a folder under `mancala/games/` and one line in `GAMES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import partial
from typing import Any

from mancala.game_state import KALAH, GameState, IllegalMove
from mancala.games.tak.state import new_tak
from mancala.games.tak.state import state_from_dict as tak_from_dict

DEFAULT_GAME = KALAH  # the game of a command, player or record that names none
WIN_VALUE = 1_000_000.0  # an evaluator's value of a won game (searches prefer sooner wins)
EVALUATOR_SCALE = 10.0  # a tree search counts an evaluator's value v as the result tanh(v / scale)
# The rules allow any size; the lab stops where the terminal drawing still reads (houses
# label a..p, then by number) and where the work of one game stays bounded.
MAX_HOUSES = 20
MAX_SEEDS = 20


def won_value(winner: int | None, player: int) -> float:
    """A finished game's exact value for `player`, `winner` having won (None: a draw)."""
    return 0.0 if winner is None else (WIN_VALUE if winner == player else -WIN_VALUE)


@dataclass(frozen=True)
class Option:
    """A rule option as the commands take it: `new_game`'s keyword `key`, given as
    --key-with-dashes, a whole number in low..high, or a switch when `low` is None."""

    key: str
    help: str
    low: int | None = None
    high: int | None = None

    @property
    def flag(self) -> str:
        return "--" + self.key.replace("_", "-")


HOUSES = Option("houses", "houses a side", 1, MAX_HOUSES)
SEEDS = Option("seeds", "seeds a house at the start", 1, MAX_SEEDS)
EMPTY_CAPTURE = Option("empty_capture", "Kalah: capture lone seeds")
SIZE = Option("size", "Tak: board size (default 5)", 3, 8)
KOMI = Option("komi", "Tak: half points added to black's flats (default 0)", -128, 128)


class Capability(StrEnum):
    """What a game may offer beyond the protocol (the list above). A game's line and a
    player's needs are checked against it, so a misspelt capability is an error, not a
    capability nobody has."""

    SOWING = "sowing"
    FAST = "fast"
    ENCODERS = "encoders"
    SOLVER = "solver"
    FRAMES = "frames"
    MARGIN = "margin"
    TEI = "tei"
    OPENSPIEL = "openspiel"
    STACKS = "stacks"


def as_capabilities(names: Any) -> frozenset[Capability]:
    """`names` as capabilities; ValueError naming any that is not one."""
    unknown = sorted(str(n) for n in names if n not in Capability.__members__.values())
    if unknown:
        known = ", ".join(Capability)
        raise ValueError(f"unknown capabilities {', '.join(unknown)}; choose among {known}")
    return frozenset(Capability(n) for n in names)


@dataclass(frozen=True)
class OpeningRecipe:
    """How a game's fixed opening sets are drawn (`mancala.arena.opening_sets`): random
    plies from its default board, the depth of the minimax that judges them, and the
    largest judged value (either sign, in the evaluator's units) that counts as contested."""

    plies: int = 4
    depth: int = 8
    within: float = 4.0


@dataclass(frozen=True)
class Game:
    """One line of the registry: how to make and read a game's states, its evaluator
    ("module:attr" of `value(state) -> float` for the player to move, exact at the end,
    imported when first asked for), and its capabilities."""

    name: str
    new: Callable[..., Any]  # (**options) -> the opening position
    from_dict: Callable[[dict[str, Any]], Any]
    evaluator: str
    capabilities: frozenset[Capability] = frozenset()
    rollout: str | None = None  # "module:attr" of a fast random playout: (state, seed) -> winner
    search: str | None = None  # "module:attr" of a fast alpha-beta class (see `fast_search`)
    planes: str | None = None  # "module:attr" of (state, seat) -> float32 array in 0..1
    features: str | None = None  # "module:attr" of planes (N, C, S, S) -> (N, F, S, S)
    display: str | None = None  # "module:attr" of (state) -> what a board display shows (JSON)
    kernel: str | None = None  # the module of its kernel adapter (`search_kernel`)
    examples: str | None = None  # the module of its training examples (`example_builders`)
    # the module of a guide az plays in place of a network where one ships (its
    # `shipped_guide(rules, models)`: weights its kernel adapter reads, or None;
    # `guided_boards(models)`: the options of the boards with one, in the folder `models`)
    guide: str | None = None
    anchors: tuple[str, ...] = ("greedy",)  # fixed players a learning run is rated against
    options: tuple[Option, ...] = ()  # the rule options its commands take
    practice: tuple[str, ...] = ("luck", "greedy")  # the main job's players beside the zoo
    gate: tuple[str, ...] = ("greedy",)  # the fixed opponents of the main job's gate
    teacher_depth: int = 8  # plies of the main job's alpha-beta teacher
    pool_per_second: int = 2_000_000  # nodes `az:t=S` reserves a second: above its speed
    openings: OpeningRecipe = OpeningRecipe()  # how its fixed opening sets are drawn
    # what its scoreboard (mancala.learn.scoreboard) promotes on against its first
    # anchor: "score" (points a game), or "margin" (its final margin a game, a game that
    # keeps scores and whose seat decides most results)
    main_measure: str = "score"

    def __post_init__(self) -> None:
        object.__setattr__(self, "capabilities", as_capabilities(self.capabilities))
        if self.main_measure not in ("score", "margin"):
            raise ValueError(f"{self.name}: no main measure {self.main_measure!r}")


SOWING = frozenset(
    {Capability.SOWING, Capability.FAST, Capability.ENCODERS, Capability.FRAMES, Capability.MARGIN}
)
SOWING_PRACTICE = ("luck", "greedy", "minimax:2", "minimax:4", "minimax:6")
SOWING_GATE = ("greedy", "minimax:4")
GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        Game(
            "kalah",
            partial(GameState.new, "kalah"),
            GameState.from_dict,
            "mancala.games.sowing.events:store_lead",
            SOWING | {Capability.SOLVER, Capability.OPENSPIEL},
            display="mancala.games.sowing.drawing:display",
            kernel="mancala.games.sowing.kernel",
            examples="mancala.games.sowing.examples",
            anchors=("solver:t=0.1", "minimax:t=0.1"),
            options=(HOUSES, SEEDS, EMPTY_CAPTURE),
            practice=SOWING_PRACTICE,
            gate=SOWING_GATE,
            teacher_depth=10,  # where the solver gives up
            openings=OpeningRecipe(plies=4, depth=12, within=4.0),
        ),
        Game(
            "sungka",
            partial(GameState.new, "sungka"),
            GameState.from_dict,
            "mancala.games.sowing.events:store_lead",
            SOWING,
            display="mancala.games.sowing.drawing:display",
            kernel="mancala.games.sowing.kernel",
            examples="mancala.games.sowing.examples",
            anchors=("minimax:t=0.1", "minimax:4"),
            options=(HOUSES, SEEDS),
            practice=SOWING_PRACTICE,
            gate=SOWING_GATE,
            openings=OpeningRecipe(plies=6, depth=8, within=6.0),
            main_measure="margin",  # the seat decides most games: docs/az.md
        ),
        Game(
            "tak",
            new_tak,
            tak_from_dict,
            "mancala.games.tak.search:state_value",
            frozenset({Capability.FAST, Capability.TEI, Capability.STACKS}),
            rollout="mancala.games.tak.evaluate:random_playout",
            search="mancala.games.tak.search:Search",
            planes="mancala.games.tak.planes:planes",
            features="mancala.games.tak.features:feature_planes",
            display="mancala.games.tak.drawing:display",
            kernel="mancala.games.tak.kernel",
            examples="mancala.games.tak.examples",
            guide="mancala.games.tak.guide",
            anchors=("minimax:t=0.1", "greedy"),
            options=(SIZE, KOMI),
            practice=("luck", "weighted", "greedy", "minimax:2"),  # minimax:4: most of a batch
            gate=("greedy", "minimax:2"),
            teacher_depth=3,  # exact windows over every move of a wide tree
            pool_per_second=150_000,
            openings=OpeningRecipe(plies=4, depth=3, within=2.0),
        ),
    )
}


def game_names() -> list[str]:
    """The names of the games, in registry order."""
    return list(GAMES)


def game(name: str) -> Game:
    """The registry line of the game `name`; ValueError naming the games for another."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    return GAMES[name]


def new_game(name: str, **options: Any) -> Any:
    """The opening position of game `name` with rule `options` (ValueError if bad)."""
    return game(name).new(**options)


def state_from_dict(data: dict[str, Any]) -> Any:
    """The state `to_dict` described, of any game (a Kalah or Sungka dict names its game
    under "variant", or not at all for Kalah; a Tak dict under "game"); ValueError if
    malformed."""
    if not isinstance(data, dict):
        raise ValueError(f"a game state is a JSON object, not {type(data).__name__}")
    name = data.get("game", data.get("variant", "kalah"))
    if not isinstance(name, str):
        raise ValueError(f"a game is named by text, not {name!r}")
    return game(name).from_dict(data)


def capabilities(state: Any) -> frozenset[Capability]:
    """What `state`'s game offers beyond the protocol (see the module text)."""
    return game(state.game).capabilities


def offers(name: str, capability: str) -> bool:
    """Whether game `name` offers `capability` (see the module text); ValueError for a
    name that is no capability."""
    [known] = as_capabilities([capability])
    return known in game(name).capabilities


def games_with(capability: str) -> list[str]:
    """The names of the games that offer `capability`, in registry order."""
    return [name for name in GAMES if offers(name, capability)]


def evaluator(name: str) -> Callable[[Any], float]:
    """The evaluator of game `name`: `value(state)` for the player to move."""
    return _load(game(name).evaluator)


def rollout(name: str) -> Callable[[Any, int], int | None] | None:
    """Game `name`'s fast random playout `(state, seed) -> winner`, if it has one."""
    target = game(name).rollout
    return _load(target) if target else None


def fast_search(name: str) -> Callable[..., Any] | None:
    """Game `name`'s fast alpha-beta, if it has one: a class made with `(memory)` whose
    `move_values(state, depth, seconds, cap, exact, seed)` gives ({move: value for the
    mover} in the searched order, the depth reached, the nodes) with the game's evaluator
    (`mancala.games.tak.search.Search`)."""
    target = game(name).search
    return _load(target) if target else None


def planes(name: str) -> Callable[[Any, int], Any] | None:
    """Game `name`'s observation for environments, if it has one: `(state, seat)` -> a
    float32 array in 0..1 of a fixed shape per rule options, seen from `seat`."""
    target = game(name).planes
    return _load(target) if target else None


def feature_planes(name: str) -> Callable[[Any], Any] | None:
    """Game `name`'s hand-made feature planes of a batch of its `planes`, if it has them:
    (N, C, S, S) -> float32 (N, F, S, S), worked out from the planes alone."""
    target = game(name).features
    return _load(target) if target else None


def kernel_adapter(name: str) -> Any:
    """Game `name`'s kernel adapter for the tree-search drivers (`search_kernel` says what
    it offers); ValueError for a game without one."""
    target = game(name).kernel
    if target is None:
        raise ValueError(f"{name} has no numba kernel for the tree searches")
    return importlib.import_module(target)


EXAMPLE_BUILDERS = "MOVES_A_ROW DENSE_ROWS record_examples search_values outcome_values".split()


def example_builders(name: str) -> Any:
    """Game `name`'s training examples (the module its `examples` names), which offers
    EXAMPLE_BUILDERS: `record_examples(start, moves, values, left_out, exact)` (the
    examples of an annotated game played from `start`: arrays whose rows hold
    MOVES_A_ROW moves' examples each, or None), `DENSE_ROWS` (whether a record keeps a
    position's values, visits and policy one number an action id, else one a legal move
    in increasing action id), and `search_values(q, value_scale, score_weight)` and
    `outcome_values(final, movers, value_scale, score_weight)` (the value targets of a
    search's values of positions and of a finished game's outcome for their movers).
    ValueError for a game without one, or a module that lacks one of them."""
    target = game(name).examples
    if target is None:
        raise ValueError(f"{name} names no module of training examples (`examples`)")
    module = importlib.import_module(target)
    missing = [attr for attr in EXAMPLE_BUILDERS if not hasattr(module, attr)]
    if missing:
        raise ValueError(f"{name}'s examples, {target}, lack {', '.join(missing)}")
    return module


def display(state: Any) -> dict[str, Any]:
    """What a board display (the web page) shows of `state` beside the protocol, as JSON:
    its game's `display` (the stores' scores; Tak's stacks, reserves and result), or {}."""
    target = game(state.game).display
    return _load(target)(state) if target else {}


def describe(state: Any) -> str:
    """The game and its rules in a few characters: 'kalah(6,4)', 'tak(size=5, komi=0)'."""
    options = state.options
    if Capability.SOWING in capabilities(state):
        rule = ", empty capture" if options.get("empty_capture") else ""
        return f"{state.game}({options['houses']},{options['seeds']}{rule})"
    return f"{state.game}(" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")"


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


__all__ = [
    "GAMES",
    "WIN_VALUE",
    "Game",
    "IllegalMove",
    "Option",
    "capabilities",
    "describe",
    "display",
    "evaluator",
    "example_builders",
    "fast_search",
    "feature_planes",
    "game",
    "game_names",
    "games_with",
    "new_game",
    "offers",
    "planes",
    "kernel_adapter",
    "rollout",
    "state_from_dict",
    "won_value",
]
