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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mancala.ai.base import Player
from mancala.nn_lib.zoo import ZOO


@dataclass(frozen=True)
class Entry:
    """How to make a player: factory "module:attr", fixed keyword arguments, needs, and
    how to say it in words (see `describe_player`)."""

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    summary: str = ""  # the player in words; "{param}" stands for its parameter in words
    takes_param: bool = False
    requires: tuple[str, ...] = ()  # importable modules it needs (optional extras)
    available: str | None = None  # "module:attr" of a () -> bool check (e.g. weights exist)
    interactive: bool = False  # needs a person (left out of tournaments)
    quick: str | None = None  # the spec a default tournament uses, if the default is slow
    variants: tuple[str, ...] = ("kalah", "sungka")  # the variants it can play
    default: str | None = None  # the parameter a spec without one gets ("t=0.5", "20000")
    count: str = "{n:,}"  # how a whole-number parameter reads ("{n:,} simulations a move")
    seconds: str = "{s:g} s a move"  # how a parameter t=S reads
    describer: str | None = None  # "module:attr" of a (**kwargs) -> str, used for {param}


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
    """Every registered name with its description (`describe_player`)."""
    return {name: describe_player(name) for name in _REGISTRY}


def describe_player(spec: str) -> str:
    """The player `spec` in words, made from its entry's `summary` template and the spec's
    own parameter (else the entry's default), so the words cannot drift from what plays.

    A whole-number parameter reads through the entry's `count` form, `t=S` through its
    `seconds` form; a network's words come from its zoo class and the metadata file
    beside its weights (`describer`). ValueError for an unknown name.

    >>> describe_player("mcts:5000")
    'Monte Carlo tree search, 5,000 simulations a move'
    >>> describe_player("minimax:t=0.1"), describe_player("minimax:8")
    ('Minimax search, 0.1 s a move', 'Minimax search, 8 plies deep')
    >>> describe_player("minimax")
    'Minimax search, 0.5 s a move'
    """
    name, param = split_spec(spec)
    entry = _REGISTRY.get(name)
    if entry is None:
        raise ValueError(f"unknown player {name!r}; available: {', '.join(_REGISTRY)}")
    if entry.describer:
        return entry.summary.format(param=_load(entry.describer)(**entry.kwargs))
    return entry.summary.format(param=_param_words(entry, param or entry.default))


def _param_words(entry: Entry, param: str | None) -> str:
    """The parameter in the entry's words: '' for none, the text itself if it is neither
    a count nor t=SECONDS (make_player is the one that refuses it)."""
    if param is None:
        return ""
    text = param[2:] if param.startswith("t=") else param.replace("_", "")
    try:
        if param.startswith("t="):
            return entry.seconds.format(s=float(text))
        return entry.count.format(n=int(text))
    except ValueError:
        return param


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
    name, param = split_spec(spec)
    entry = _REGISTRY.get(name)
    if entry is None:
        known = ", ".join(_REGISTRY)
        raise ValueError(f"unknown player {name!r}; available: {known}")
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


register("luck", Entry("mancala.ai.simple:Luck", summary="Random: any legal move"))
register("greedy", Entry("mancala.ai.simple:Greedy", summary="Greedy: most seeds gained now"))
register("max", Entry("mancala.ai.simple:Max", summary="The fullest house (Sungka paper)"))
register(
    "exact",
    Entry(
        "mancala.ai.simple:Exact",
        summary="A move ending in the store, else the fullest house (Sungka paper)",
    ),
)
register(
    "human",
    Entry("mancala.ai.human:Human", summary="A person at the terminal", interactive=True),
)
register(  # default: mancala.ai.minimax.DEFAULT_TIME (tests/test_descriptions.py checks it)
    "minimax",
    Entry(
        "mancala.ai.minimax:Minimax",
        summary="Minimax search, {param}",
        takes_param=True,
        quick="minimax:t=0.1",
        default="t=0.5",
        count="{n} plies deep",
    ),
)
register(
    "mcts",
    Entry(
        "mancala.ai.mcts:MCTS",
        summary="Monte Carlo tree search, {param}",
        takes_param=True,
        quick="mcts:5000",
        default="20000",
        count="{n:,} simulations a move",
    ),
)
register(
    "nmcts",
    Entry(
        "mancala.ai.nmcts:NaiveMonteCarlo",
        summary="Flat Monte Carlo (random playouts from each move), {param}",
        takes_param=True,
        quick="nmcts:20000",
        default="200000",
        count="{n:,} playouts a move",
    ),
)
register(
    "openspiel-mcts",
    Entry(
        "mancala.ai.openspiel_mcts:OpenSpielMCTS",
        summary="OpenSpiel's Monte Carlo tree search (C++, random rollouts), {param}",
        takes_param=True,
        requires=("pyspiel",),
        quick="openspiel-mcts:5000",
        variants=("kalah",),
        default="20000",
        count="{n:,} simulations a move",
    ),
)
for _net in ZOO:
    register(  # the network zoo (mancala/nn_lib/zoo.py); offered when its weights exist
        _net,
        Entry(
            "mancala.ai.network:NetworkPlayer",
            kwargs={"network": _net},
            summary="{param}",
            available=f"mancala.nn_lib.zoo:has_{_net}",
            variants=("kalah",),
            describer="mancala.nn_lib.zoo:describe_network",
        ),
    )
register(
    "solver",
    Entry(
        "mancala.ai.solver:PerfectPlayer",
        summary="Perfect play: exact search and endgame database{param}",
        takes_param=True,
        available="mancala.ai.solver:database_ready",
        quick="solver:t=0.1",
        variants=("kalah",),
        seconds=", else minimax where no proof comes within {s:g} s",
    ),
)
register(  # the Sungka paper's DQN (mancala/dqn_train.py); the net trained for its seat
    "dqn",
    Entry(
        "mancala.ai.dqn:DQNPlayer",
        summary="Deep Q-network of the Sungka paper, learnt from random play (a net a seat)",
        available="mancala.ai.dqn:has_weights",
    ),
)
