"""Every player by name: `make_player("minimax:8")`, `available_players()`.

A name may carry one parameter after a colon (`minimax:8`, `minimax:t=1.0`); the
registry passes it, as text, to the player's factory, which checks it. Entries name
their factory as "module:attribute" and are imported only when made, so that naming a
network player is what imports Keras, never listing or making the others.

To add a player: add one `register(...)` line below (or call `register` from outside).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mancala.ai.base import Player
from mancala.game_state import DEFAULTS, GameState
from mancala.nn_lib.zoo import ZOO, network


@dataclass(frozen=True)
class Entry:
    """How to make a player: factory "module:attr", fixed keyword arguments, needs."""

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    summary: str = ""
    takes_param: bool = False
    requires: tuple[str, ...] = ()  # importable modules it needs (optional extras)
    available: str | None = None  # "module:attr" of a () -> bool check (e.g. weights exist)
    interactive: bool = False  # needs a person (left out of tournaments)
    quick: str | None = None  # the spec a default tournament uses, if the default is slow
    variants: tuple[str, ...] = ("kalah", "sungka")  # the variants it can play
    games: tuple[dict[str, Any], ...] = ()  # built for these games only (variant + options)


_REGISTRY: dict[str, Entry] = {}


def register(name: str, entry: Entry) -> None:
    """Add (or replace) the player `name`."""
    _REGISTRY[name] = entry


def _load(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def split_spec(spec: str) -> tuple[str, str | None]:
    """'minimax:8' -> ('minimax', '8'); 'luck' -> ('luck', None)."""
    name, sep, param = spec.partition(":")
    return name, (param if sep else None)


def is_available(name: str) -> bool:
    """True when the player `name` can be made here (its extras and files exist)."""
    entry = _REGISTRY[name]
    if any(importlib.util.find_spec(module) is None for module in entry.requires):
        return False
    return entry.available is None or bool(_load(entry.available)())


def available_players(include_interactive: bool = True) -> list[str]:
    """Names of the players that can be made here, in registry order."""
    return [
        name
        for name, entry in _REGISTRY.items()
        if (include_interactive or not entry.interactive) and is_available(name)
    ]


def tournament_players(variant: str = "kalah") -> list[str]:
    """The specs a tournament uses when none are named: every available non-human
    player of `variant`, in its quick form where the registry gives one."""
    return [
        _REGISTRY[name].quick or name
        for name in available_players(False)
        if variant in _REGISTRY[name].variants
    ]


def describe_players() -> dict[str, str]:
    """Every registered name with its one-line summary."""
    return {name: entry.summary for name, entry in _REGISTRY.items()}


def check_names(specs: Sequence[str]) -> None:
    """ValueError naming the first of `specs` that is no registered player."""
    for spec in specs:
        name, _ = split_spec(spec)
        if name not in _REGISTRY:
            raise ValueError(f"unknown player {name!r}; available: {', '.join(_REGISTRY)}")


def can_play(spec: str, state: GameState) -> bool:
    """True when the player `spec` can play `state`'s game (variant, board, rules).

    >>> can_play("greedy", GameState.new("sungka")), can_play("nn1h128", GameState.new("sungka"))
    (True, False)
    """
    check_names([spec])
    entry = _REGISTRY[split_spec(spec)[0]]
    if state.variant not in entry.variants:
        return False
    return not entry.games or any(
        all(getattr(state, key) == value for key, value in game.items()) for game in entry.games
    )


def players_for(state: GameState) -> list[str]:
    """The available non-interactive players that can play `state`'s game."""
    return [name for name in available_players(False) if can_play(name, state)]


def check_can_play(specs: Sequence[str], state: GameState) -> None:
    """ValueError naming the first of `specs` that cannot play `state`'s game, and the
    players that can."""
    for spec in specs:
        if not can_play(spec, state):
            rule = ", empty capture" if state.empty_capture else ""
            game = f"{state.variant}({state.houses},{state.seeds}{rule})"
            raise ValueError(
                f"{spec} cannot play {game}; players that can: {', '.join(players_for(state))}"
            )


def make_player(spec: str, seed: int | None = None, **options: Any) -> Player:
    """The player named by `spec` ('luck', 'minimax:8'...), its randomness seeded by `seed`.

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
    """
    if not isinstance(spec, str):
        raise ValueError(f"a player name is text, not {spec!r}")
    check_names([spec])
    name, param = split_spec(spec)
    entry = _REGISTRY[name]
    if param is not None and not entry.takes_param:
        raise ValueError(f"player {name!r} takes no parameter (got {spec!r})")
    missing = [m for m in entry.requires if importlib.util.find_spec(m) is None]
    if missing:
        raise ValueError(f"player {name!r} needs the package(s): {', '.join(missing)}")
    kwargs = dict(entry.kwargs, **options)
    if entry.takes_param:
        kwargs["param"] = param
    player = _load(entry.factory)(seed=seed, **kwargs)
    player.name = spec
    return player


register("luck", Entry("mancala.ai.simple:Luck", summary="a uniformly random legal move"))
register("greedy", Entry("mancala.ai.simple:Greedy", summary="one ply: most seeds gained"))
register("max", Entry("mancala.ai.simple:Max", summary="the fullest house (Sungka paper)"))
register(
    "exact",
    Entry("mancala.ai.simple:Exact", summary="a move ending in the store, else max (Sungka paper)"),
)
register(
    "human",
    Entry("mancala.ai.human:Human", summary="a person at the terminal", interactive=True),
)
register(
    "minimax",
    Entry(
        "mancala.ai.minimax:Minimax",
        summary="alpha-beta, extra-turn aware, TT, iterative deepening (minimax:8, minimax:t=1.0)",
        takes_param=True,
        quick="minimax:t=0.1",
    ),
)
register(
    "mcts",
    Entry(
        "mancala.ai.mcts:MCTS",
        summary="UCT Monte Carlo tree search, greedy rollouts (mcts:20000 simulations)",
        takes_param=True,
        quick="mcts:5000",
    ),
)
register(
    "nmcts",
    Entry(
        "mancala.ai.nmcts:NaiveMonteCarlo",
        summary="flat Monte Carlo: random playouts per first move (nmcts:200000)",
        takes_param=True,
        quick="nmcts:20000",
    ),
)
register(
    "openspiel-mcts",
    Entry(
        "mancala.ai.openspiel_mcts:OpenSpielMCTS",
        summary="OpenSpiel's C++ MCTS bot, random rollouts (Kalah(6,4) only; needs open_spiel)",
        takes_param=True,
        requires=("pyspiel",),
        quick="openspiel-mcts:5000",
        variants=("kalah",),
        games=({"variant": "kalah", "houses": 6, "seeds": 4},),
    ),
)
for _net in ZOO:
    register(  # the network zoo (mancala/nn_lib/zoo.py); offered when its weights exist
        _net,
        Entry(
            "mancala.ai.network:NetworkPlayer",
            kwargs={"network": _net},
            summary=f"network {_net}: learnt the choices of minimax:8 from recorded games",
            available=f"mancala.nn_lib.zoo:has_{_net}",
            variants=("kalah",),
            games=({"variant": network(_net).variant, **network(_net).options},),
        ),
    )
register(
    "solver",
    Entry(
        "mancala.ai.solver:PerfectPlayer",
        summary="perfect play: exact search + endgame database (Kalah; solver:t=0.1 falls "
        "back to minimax where it cannot prove a value in time)",
        takes_param=True,
        available="mancala.ai.solver:database_ready",
        quick="solver:t=0.1",
        variants=("kalah",),
    ),
)
register(  # the Sungka paper's DQN (mancala/dqn_train.py); the net trained for its seat
    "dqn",
    Entry(
        "mancala.ai.dqn:DQNPlayer",
        summary="the Sungka paper's DQN from random play: a Q-net per variant and seat",
        available="mancala.ai.dqn:has_weights",
        games=tuple({"variant": v, **DEFAULTS[v]} for v in DEFAULTS),
    ),
)
