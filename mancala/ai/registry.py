"""Every player by name: `make_player("minimax:8")`, `available_players()`.

A name may carry parameters after a colon (`minimax:8`, `minimax:t=1.0`,
`mcts:300,rollout=random`: a number or time, and named choices). Each entry
declares the parameters it takes, with their bounds (`mancala.ai.limits.Param`); the
registry parses and checks the text and passes the value to the player's factory as a
keyword (`depth=8`, `seconds=1.0`), with the `Limits` its searches must keep to (the
registry's own by default; the web API passes tighter ones). Entries name
their factory as "module:attribute" and are imported only when made, so that naming a
network player is what imports Keras, never listing or making the others.

Which games a player can play is said in its entry: by name (`variants`, None for any
game of `mancala.games`), by the capabilities it needs of a game (`needs`, e.g. the
sowing kernels), or as the exact rules it was built for (`games`, a network's board).

To add a player: add one `register(...)` line below (or call `register` from outside).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mancala.ai import limits as bounds
from mancala.ai.base import Player
from mancala.ai.limits import REGISTRY_LIMITS, Limits, Param, parse_param
from mancala.game_state import DEFAULTS, GameState
from mancala.games import (
    DEFAULT_GAME,
    as_capabilities,
    capabilities,
    describe,
    game,
    games_with,
    new_game,
)
from mancala.games.tak.evaluate import EVALUATIONS
from mancala.nn_lib.base import ZOO_GAMES
from mancala.nn_lib.policy_value import AZ_GAMES
from mancala.nn_lib.zoo import ZOO


@dataclass(frozen=True)
class Entry:
    """How to make a player: factory "module:attr", fixed keyword arguments, needs, and
    how to say it in words (see `describe_player`)."""

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    summary: str = ""  # the player in words; "{param}" stands for its parameter in words
    params: tuple[Param, ...] = ()  # the parameters a name may carry, with their bounds
    requires: tuple[str, ...] = ()  # importable modules it needs (optional extras)
    available: str | None = None  # "module:attr" of a (**kwargs) -> bool check (weights exist)
    interactive: bool = False  # needs a person (left out of tournaments)
    quick: str | None = None  # the spec a default tournament uses, if the default is slow
    variants: tuple[str, ...] | None = None  # the games it can play by name (None: any)
    needs: frozenset[str] = frozenset()  # capabilities a game must offer (mancala.games)
    games: tuple[dict[str, Any], ...] = ()  # built for these games only (variant + options)
    trained: str | None = None  # "module:attr" of a (**kwargs) -> games, in place of `games`
    words: dict[str, str] = field(default_factory=dict)  # {param} per kind: "{:,} playouts"
    describer: str | None = None  # "module:attr" of a (**kwargs) -> str, used for {param}
    text: str | None = None  # the keyword the text after the colon goes to, unparsed (tei)
    local: bool = False  # runs a program of this machine: never offered by default or the web


_REGISTRY: dict[str, Entry] = {}


def register(name: str, entry: Entry) -> None:
    """Add (or replace) the player `name`; ValueError when it needs a capability no game
    could offer (a misspelt one)."""
    as_capabilities(entry.needs)
    _REGISTRY[name] = entry


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def split_spec(spec: str) -> tuple[str, str | None]:
    """'minimax:8' -> ('minimax', '8'); 'luck' -> ('luck', None)."""
    name, sep, param = spec.partition(":")
    return name, (param if sep else None)


def missing_packages(name: str) -> list[str]:
    """The optional packages the player `name` needs that are not installed here."""
    return [m for m in _REGISTRY[name].requires if importlib.util.find_spec(m) is None]


def is_available(name: str) -> bool:
    """True when the player `name` can be made here (its extras and files exist)."""
    entry = _REGISTRY[name]
    if missing_packages(name):
        return False
    return entry.available is None or bool(_load(entry.available)(**entry.kwargs))


def available_players(include_interactive: bool = True) -> list[str]:
    """Names of the players that can be made here, in registry order; without the
    interactive ones, also without those that run a program of this machine (`local`)."""
    return [
        name
        for name, entry in _REGISTRY.items()
        if (include_interactive or not (entry.interactive or entry.local)) and is_available(name)
    ]


def tournament_players(variant: str = DEFAULT_GAME, start: GameState | None = None) -> list[str]:
    """The specs a tournament uses when none are named: every available non-human
    player of `variant` (of the board of `start`, when given: a network plays only the
    boards it was trained for), in its quick form where the registry gives one."""
    specs = [
        _REGISTRY[name].quick or name
        for name in available_players(False)
        if _plays_variant(_REGISTRY[name], variant)
    ]
    return [spec for spec in specs if start is None or can_play(spec, start)]


def _plays_variant(entry: Entry, variant: str) -> bool:
    """Whether `entry` plays some rules of the game `variant`."""
    if entry.variants is not None and variant not in entry.variants:
        return False
    if not entry.needs <= game(variant).capabilities:
        return False
    built = _built_for(entry)
    return not built or any(g.get("variant") == variant for g in built)


def _built_for(entry: Entry) -> tuple[dict[str, Any], ...]:
    """The rules `entry`'s player was built for (a network: those it has weights for);
    () when it plays any rules of its games."""
    if entry.trained:
        return tuple(_load(entry.trained)(**entry.kwargs))
    return entry.games


def built_for(spec: str) -> list[dict[str, Any]]:
    """The rules (variant and options) the player `spec` was built for, e.g. a network's
    board; [] when it plays any rules of its games.

    >>> built_for("greedy"), built_for("sarsa")
    ([], [{'variant': 'tak', 'size': 3}])
    """
    return list(_built_for(_entry(spec)))


def describe_players() -> dict[str, str]:
    """Every registered name with its description (`describe_player`)."""
    return {name: describe_player(name) for name in _REGISTRY}


def describe_player(spec: str) -> str:
    """The player `spec` in words, made from its entry's `summary` template and the values
    the registry's own parser reads from the spec (else the entry's defaults), so the words
    cannot drift from what plays. Each parameter kind reads through the entry's `words`; a
    network's words come from its zoo class and the metadata file beside its weights
    (`describer`). ValueError for an unknown name or a parameter out of bounds.

    >>> describe_player("mcts:5000")
    'Monte Carlo tree search, 5,000 simulations a move'
    >>> describe_player("minimax:t=0.1"), describe_player("minimax:8")
    ('Minimax search, 0.1 s a move', 'Minimax search, 8 plies deep')
    >>> describe_player("minimax")
    'Minimax search, 0.5 s a move'
    """
    _, entry, values = _resolve(spec, REGISTRY_LIMITS)
    if entry.describer:
        return entry.summary.format(param=_load(entry.describer)(**entry.kwargs))
    words = ", ".join(entry.words[kind].format(value) for kind, value in values.items())
    return entry.summary.format(param=words)


def _resolve(spec: str, limits: Limits) -> tuple[str, Entry, dict[str, float]]:
    """The name, the entry and the parameter values of `spec` (the entry's defaults where
    it gives none), checked against `limits`; ValueError saying what is wrong."""
    if not isinstance(spec, str):
        raise ValueError(f"a player name is text, not {spec!r}")
    check_names([spec])
    name, param = split_spec(spec)
    entry = _REGISTRY[name]
    if entry.text:
        return name, entry, {}
    if param is not None and not entry.params:
        raise ValueError(f"player {name!r} takes no parameter (got {spec!r})")
    values = parse_param(name, entry.params, param, limits) if entry.params else {}
    return name, entry, values


def split_names(text: str) -> list[str]:
    """Player names as the commands take them, comma-separated: a part with "=" and no ":"
    is an option of the name before it, so a name keeps its own options.

    >>> split_names("greedy, az-file:a.keras,t=0.1,minimax:t=0.5,,tei:/bin/e,movetime=50")
    ['greedy', 'az-file:a.keras,t=0.1', 'minimax:t=0.5', 'tei:/bin/e,movetime=50']
    """
    names: list[str] = []
    for part in filter(None, (part.strip() for part in text.split(","))):
        if names and "=" in part and ":" not in part:
            names[-1] += "," + part
        else:
            names.append(part)
    return names


def check_names(specs: Sequence[str]) -> None:
    """ValueError naming the first of `specs` that is no registered player."""
    for spec in specs:
        name, _ = split_spec(spec)
        if name not in _REGISTRY:
            raise ValueError(f"unknown player {name!r}; available: {', '.join(_REGISTRY)}")


def _entry(spec: str) -> Entry:
    """The entry of the player `spec`; ValueError naming the players for an unknown one."""
    check_names([spec])
    return _REGISTRY[split_spec(spec)[0]]


def can_play(spec: str, state: GameState) -> bool:
    """True when the player `spec` can play `state`'s game (variant, board, rules).

    >>> small = GameState.new("sungka", houses=5)
    >>> can_play("greedy", small), can_play("nn1h128", small)
    (True, False)
    """
    entry = _entry(spec)
    if not _plays_variant(entry, state.game) or not entry.needs <= capabilities(state):
        return False
    rules = {"variant": state.game, **state.options}
    built_for = _built_for(entry)
    return not built_for or any(
        all(rules.get(key, getattr(state, key, None)) == value for key, value in built.items())
        for built in built_for
    )


def players_for(state: GameState) -> list[str]:
    """The available non-interactive players that can play `state`'s game."""
    return [name for name in available_players(False) if can_play(name, state)]


def check_can_play(specs: Sequence[str], state: GameState) -> None:
    """ValueError naming the first of `specs` that cannot play `state`'s game, and the
    players that can."""
    for spec in specs:
        if not can_play(spec, state):
            raise ValueError(
                f"{spec} cannot play {describe(state)}; "
                f"players that can: {', '.join(players_for(state))}"
            )


def entry_params(name: str) -> tuple[Param, ...]:
    """The parameters the player `name` takes (KeyError for an unknown name)."""
    return _REGISTRY[name].params


def is_interactive(spec: str) -> bool:
    """True when the player `spec` needs a person at the terminal.

    >>> is_interactive("human"), is_interactive("greedy")
    (True, False)
    """
    return _entry(spec).interactive


def reads_files(spec: str) -> bool:
    """True when making the player `spec` reads files (a network's weights, the solver's
    database), which a caller serving threads makes one at a time.

    >>> reads_files("nn1h128"), reads_files("minimax:4")
    (True, False)
    """
    return _entry(spec).available is not None


def is_search(spec: str) -> bool:
    """True when the player `spec` searches within a budget (its name takes one: depth,
    simulations, seconds); False for players that answer at once (luck, greedy, a network
    alone). ValueError for an unknown name.

    >>> is_search("minimax:4"), is_search("az"), is_search("greedy"), is_search("nn1h128")
    (True, True, False, False)
    """
    return bool(_entry(spec).params)


def make_player(
    spec: str, seed: int | None = None, limits: Limits | None = None, **options: Any
) -> Player:
    """The player named by `spec` ('luck', 'minimax:8'...), its randomness seeded by `seed`,
    its searches kept within `limits` (default: the registry's own bounds).

    >>> make_player("greedy", seed=1).name
    'greedy'
    >>> make_player("nobody")
    Traceback (most recent call last):
    ...
    ValueError: unknown player 'nobody'; available: luck, greedy, ...
    >>> make_player("luck:3")
    Traceback (most recent call last):
    ...
    ValueError: player 'luck' takes no parameter (got 'luck:3')
    >>> make_player("minimax:101")
    Traceback (most recent call last):
    ...
    ValueError: minimax depth must be 1..100, not 101
    """
    limits = limits or REGISTRY_LIMITS
    name, entry, values = _resolve(spec, limits)
    missing = missing_packages(name)
    if missing:
        raise ValueError(f"player {name!r} needs the package(s): {', '.join(missing)}")
    kwargs = dict(entry.kwargs, **options)
    if entry.params:
        kwargs.update(values, limits=limits)
    if entry.text:
        kwargs[entry.text] = split_spec(spec)[1] or ""
    player = _load(entry.factory)(seed=seed, **kwargs)
    player.name = spec
    return player


SOWING = frozenset({"sowing"})  # players of the numba sowing kernels or sowing heuristics
MCTS_ROLLOUTS = ("greedy", "random", "evaluator", "weighted", "sarsa")  # mcts.rollout_names()

register("luck", Entry("mancala.ai.simple:Luck", summary="Random: any legal move"))
register(
    "greedy",
    Entry(
        "mancala.ai.simple:Greedy",
        summary="Greedy: most seeds gained now (other games: the best-valued position)",
    ),
)
register(
    "max", Entry("mancala.ai.simple:Max", summary="The fullest house (Sungka paper)", needs=SOWING)
)
register(
    "exact",
    Entry(
        "mancala.ai.simple:Exact",
        summary="A move ending in the store, else the fullest house (Sungka paper)",
        needs=SOWING,
    ),
)
register(
    "weighted",
    Entry(
        "mancala.ai.simple:Weighted",
        summary="Random, placing or moving a stack as often (Tak)",
        needs=frozenset({"stacks"}),
    ),
)
register(
    "sarsa",
    Entry(
        "mancala.ai.sarsa:SarsaPlayer",
        summary="Tabular SARSA: the best move of its learnt table (Tak)",
        available="mancala.ai.sarsa:has_table",
        needs=frozenset({"stacks"}),
        trained="mancala.ai.sarsa:trained_games",
    ),
)
register(
    "human",
    Entry("mancala.ai.human:Human", summary="A person at the terminal", interactive=True),
)
register(  # default: mancala.ai.limits.DEFAULT_SECONDS (tests/ai/test_descriptions.py checks it)
    "minimax",
    Entry(
        "mancala.ai.minimax:Minimax",
        summary="Minimax search, {param}",
        params=(
            bounds.depth(bounds.MAX_DEPTH),
            bounds.seconds(default=0.5),
            bounds.choice("evaluation", EVALUATIONS),
        ),
        words={
            "depth": "{:g} plies deep",
            "seconds": "{:g} s a move",
            "evaluation": "Tak's {} evaluation",
        },
        quick="minimax:t=0.1",
    ),
)
register(
    "mcts",
    Entry(
        "mancala.ai.mcts:MCTS",
        summary="Monte Carlo tree search, {param}",
        params=(
            bounds.count("simulations", 10_000_000, default=20_000),
            bounds.seconds(),
            bounds.choice("rollout", MCTS_ROLLOUTS),
        ),
        words={
            "simulations": "{:,} simulations a move",
            "seconds": "{:g} s a move",
            "rollout": "rollout={}",
        },
        quick="mcts:5000",
    ),
)
register(
    "nmcts",
    Entry(
        "mancala.ai.nmcts:NaiveMonteCarlo",
        summary="Flat Monte Carlo (random playouts from each move), {param}",
        params=(bounds.count("playouts", 100_000_000, default=200_000),),
        words={"playouts": "{:,} playouts a move"},
        quick="nmcts:20000",
        needs=SOWING,
    ),
)
register(
    "openspiel-mcts",
    Entry(
        "mancala.ai.openspiel_mcts:OpenSpielMCTS",
        summary="OpenSpiel's Monte Carlo tree search (C++, random rollouts), {param}",
        params=(bounds.count("simulations", 200_000, default=20_000),),  # cannot be stopped
        words={"simulations": "{:,} simulations a move"},
        requires=("pyspiel",),
        quick="openspiel-mcts:5000",
        needs=frozenset({"openspiel"}),
        games=tuple(  # each game's default board
            {"variant": name, **new_game(name).options} for name in games_with("openspiel")
        ),
    ),
)
for _net in ZOO:
    register(  # the network zoo (mancala/nn_lib/zoo.py); offered when its weights exist
        _net,
        Entry(
            "mancala.ai.network:NetworkPlayer",
            kwargs={"network": _net},
            summary="{param}",
            available="mancala.nn_lib.zoo:has_weights",
            variants=tuple(ZOO_GAMES),
            trained="mancala.nn_lib.zoo:trained_games",
            describer="mancala.nn_lib.zoo:describe_network",
        ),
    )
register(  # az with the weights of a file (a run's candidate): from the command line only
    "az-file",
    Entry(
        "mancala.ai.az:az_from_file",
        summary="AlphaZero-style search with the weights of a file of this machine",
        variants=tuple(AZ_GAMES),
        text="spec",
        local=True,
    ),
)
register(  # an outside engine (mancala/ai/tei.py): tei:PATH, from the command line only
    "tei",
    Entry(
        "mancala.ai.tei:TEIEngine",
        summary="An outside Tak engine, a program of this machine spoken to over TEI",
        text="engine",
        local=True,
        needs=frozenset({"tei"}),
    ),
)
register(
    "solver",
    Entry(
        "mancala.ai.solver:PerfectPlayer",
        summary="Perfect play: exact search and endgame database{param}",
        params=(bounds.seconds(),),  # none: exact search up to the limits' seconds
        words={"seconds": ", else minimax where no proof comes within {:g} s"},
        available="mancala.ai.solver:database_ready",
        quick="solver:t=0.1",
        needs=frozenset({"solver"}),
    ),
)
register(  # the Sungka paper's DQN (mancala/commands/dqn.py); the net trained for its seat
    "dqn",
    Entry(
        "mancala.ai.dqn:DQNPlayer",
        summary="Deep Q-network of the Sungka paper, learnt from random play (a net a seat)",
        available="mancala.ai.dqn:has_weights",
        games=tuple({"variant": v, **DEFAULTS[v]} for v in DEFAULTS),
    ),
)
AZ_SEARCH: dict[str, Any] = {  # what az and az-solo share: their budget, and where they play
    "params": (bounds.count("simulations", 1_000_000, default=5000), bounds.seconds()),
    "words": {"simulations": "{:,} simulations a move", "seconds": "{:g} s a move"},
    "available": "mancala.nn_lib.policy_value:has_weights",
    "variants": tuple(AZ_GAMES),
    "trained": "mancala.nn_lib.policy_value:trained_games",
}
register(  # AlphaZero-style (mancala/ai/az.py); offered for the games with policy-value weights
    "az-net",
    Entry(
        "mancala.ai.az:AZNet",
        summary="AlphaZero-style policy network alone: its favourite legal move, no search",
        available="mancala.nn_lib.policy_value:has_weights",
        variants=tuple(AZ_GAMES),
        trained="mancala.nn_lib.policy_value:trained_games",
    ),
)
register(
    "az",
    Entry(
        "mancala.ai.az:AZ",
        summary="AlphaZero-style search (PUCT guided by the policy-value network), {param}",
        quick="az:1000",
        **AZ_SEARCH,
    ),
)
register(  # az without the solver: what the network and its search know alone
    "az-solo",
    Entry(
        "mancala.ai.az:AZ",
        kwargs={"endgame": False, "prove": False},
        summary="AlphaZero-style search without the solver's help (no endgame database, "
        "no proofs), {param}",
        quick="az-solo:1000",
        **AZ_SEARCH,
    ),
)
