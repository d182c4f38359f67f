"""The main job's settings, typed: everything `mancala train` reads from its command line,
checked there, in one frozen record that the loop is given instead of argparse's bag."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


@dataclass(frozen=True, kw_only=True)
class TrainSettings:
    """A run of the main job: each field is an option of `mancala train` (its --help says
    what each does and its default), checked there."""

    # the game and who plays it
    players: tuple[str, ...]  # registry players and zoo networks; az-net is refit, not seated
    variant: str
    rules: dict[str, Any] | None  # the board's (None: the game's default board)
    explore: float  # the rate of uniformly random moves
    # the batches
    batches: int | None  # None: until Ctrl+C or SIGTERM
    games: int  # a batch's (on Ray workers ahead of the refits: the least)
    per_pairing: int
    seed: int
    workers: int | str  # 1: here; N or "auto": Ray actors
    address: str | None  # a Ray cluster to join
    wait_for_refits: bool  # on Ray, no batch played during the refits
    # the labels
    teacher: tuple[int, int] | None  # (alpha-beta's plies, az's simulations); None: the game's
    exact_nodes: int  # the solver's proofs within this many nodes (Kalah)
    expert_check: int  # positions or game pairs that must show az the better labeller
    labels: tuple[Path, ...] | None  # None: those that ship for the board
    exact_games: bool  # the run's games' exact positions alone (a board the solver reaches)
    # the refits
    record_only: bool
    keep: int
    sample: int
    epochs: int
    learning_rate: float
    missed_weight: float
    eval_games: int
    # the gate
    gate_every: int
    gate_openings: int
    gate_opponents: tuple[str, ...]
    gate_opponents_given: bool  # named by --gate-opponents (else az-net's may be anchors)
    # where
    out: Path  # the games file
    models: Path | None  # None: mancala/models
    resume: bool

    @classmethod
    def from_args(cls, args: argparse.Namespace, players: list[str]) -> TrainSettings:
        """The settings `args` (parsed and checked by `mancala train`) give `players`."""
        given = {field.name: getattr(args, field.name) for field in fields(cls)}
        given["labels"] = None if args.labels is None else tuple(args.labels)
        given["players"] = tuple(players)
        given["gate_opponents"] = tuple(args.gate_opponents)
        return cls(**given)
