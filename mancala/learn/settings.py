"""The learning jobs' settings, typed: everything `mancala train` (and its presets) and
`mancala selfplay` read from their command lines, checked there, in one frozen record
that the loop is given (no loop sees argparse). The main job's defaults here are its
command line's."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mancala.games import DEFAULT_GAME
from mancala.learn.practice import EXACT_NODES, KEEP
from mancala.nn_lib.base import LEARNING_RATE

EXPERT_CHECK = 100  # held-out positions, or game pairs, of the expert check


@dataclass(frozen=True, kw_only=True)
class TrainSettings:
    """A run of the main job: each field is an option of `mancala train` (its --help says
    what each does), checked there."""

    # the game and who plays it
    players: tuple[str, ...]  # registry players and zoo networks; az-net is refit, not seated
    variant: str = DEFAULT_GAME
    rules: dict[str, Any] | None = None  # the board's (None: the game's default board)
    explore: float = 0.1  # the rate of uniformly random moves
    # the batches
    batches: int | None = None  # None: until Ctrl+C or SIGTERM
    games: int = 240  # a batch's (on Ray workers ahead of the refits: the least)
    per_pairing: int = 8
    seed: int = 0
    workers: int | str = 1  # 1: here; N or "auto": Ray actors
    address: str | None = None  # a Ray cluster to join
    wait_for_refits: bool = False  # on Ray, no batch played during the refits
    # the labels
    teacher: tuple[int, int] | None = None  # (alpha-beta's plies, az's simulations)
    exact_nodes: int = EXACT_NODES  # the solver's proofs within this many nodes (Kalah)
    expert_check: int = EXPERT_CHECK  # positions or game pairs that must show az the better
    labels: tuple[Path, ...] | None = None  # None: those that ship for the board
    exact_games: bool = False  # the run's games' exact positions alone (a solved board)
    # the refits
    record_only: bool = False
    keep: int = KEEP
    sample: int = 200_000
    epochs: int = 1
    learning_rate: float = LEARNING_RATE
    missed_weight: float = 1.0
    eval_games: int = 20
    # the gate
    gate_every: int = 1
    gate_openings: int = 200
    gate_opponents: tuple[str, ...] = ()  # (): the game's (az-net's: its anchors, unsolved)
    # where
    out: Path | None = None  # the games file (None: the run's)
    models: Path | None = None  # None: mancala/models
    resume: bool = False


@dataclass(frozen=True, kw_only=True)
class SelfPlaySettings:
    """A run of self-play (`mancala selfplay`): each field is one of its options (its --help
    says what each does and its default), checked there."""

    variant: str
    rules: dict[str, Any]  # the board's
    models: Path  # the weights folder whose network the gate replaces
    seed: int
    # a round's self-play
    games: int
    simulations: int
    root: str | None  # "gumbel" or "dirichlet" (None: gumbel)
    fast_simulations: int  # playout cap randomisation: the cheap searches' simulations
    full_share: float  # ... and the share of full ones
    search_value: float  # the search's value's weight in the value target
    explore_plies: int
    # the refit
    value_scale: float  # a new network's value of a margin m: tanh(m / value_scale)
    window: int  # the latest self-play games a refit reads
    epochs: int
    refit_from: str  # "candidate" or "best"
    learning_rate: float
    # the gate and the measures
    gate_openings: int
    margin: float  # the least score head to head
    lead: float  # standard errors above even
    eval: int  # openings against greedy, each round
