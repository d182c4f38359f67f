"""The promotion gate of the networks: new weights replace the shipped ones only when
they are at least as strong, and the replaced file is kept.

`gate` plays the candidate and the incumbent (the weights it would replace) against each
other from `openings` random openings of `plies` plies, each opening once in each seat,
and each of them against every fixed opponent over the same games, then decides by the
lab's one rule (`mancala.learn.verdict`). Its measures: head to head, the candidate's
score; the main measure, the mean score a game against the fixed opponents together,
paired game by game with the incumbent's, or where the solver reaches (`exact`: a solved
set of positions), the share of the set's positions in which it keeps the exact value,
paired position by position and clustered by position (a position the set holds many
times counts once as evidence: `mean_se`; checked first: a candidate that fails it plays
no game); the others, the score against each fixed opponent. Identical weights (every
paired difference 0) pass.

Noise alone seldom passes (about one time in 44 for weights exactly as strong, far less
for weaker ones). A long run tests each network many times, so the bar rises with the
tries (`lead_for`). Against perfect play, because near the top the fixed opponents stop
telling strengths apart (docs/random_train.md).
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import Any

from tqdm import tqdm

from mancala.ai.base import Player
from mancala.ai.registry import make_player
from mancala.arena.opening_sets import board_set_starts
from mancala.arena.openings import draw_openings
from mancala.arena.pairs import play_pairs
from mancala.arena.solved_set import mean_se
from mancala.game_state import GameState
from mancala.games.replay import replayed
from mancala.learn.verdict import BEHIND, LEAD, Measure, decide


@dataclass(frozen=True)
class GateResult:
    """What the gate saw and decided; `to_dict()` is JSON-safe for the run's records."""

    promoted: bool
    reason: str
    games: int
    head_to_head: float | None  # the candidate's mean score against the incumbent, 0..1
    against: dict[str, dict[str, float]] = field(default_factory=dict)
    kept_share: list[float] | None = None  # % of the solved set kept: candidate, incumbent

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def gate_openings(
    start: GameState, openings: int, plies: int, seed: int
) -> tuple[list[GameState], list[list[int]]]:
    """`openings` starts of `plies` random plies from `start`, distinct while there are
    that many (`draw_openings`): (positions, their moves)."""
    moves = draw_openings(start, openings, plies, seed)
    return [replayed(start, m) for m in moves], moves


def fixed_or_random_openings(
    start: GameState, openings: int, seed: int
) -> tuple[list[GameState], list[list[int]], str | None]:
    """The first `openings` openings of the fixed set of `start`'s board, else as many
    random 2-ply openings of it (`gate_openings`): (positions, their moves, the set's
    name or None)."""
    fixed = board_set_starts(start)
    if fixed is None:
        return *gate_openings(start, openings, 2, seed), None
    starts, moves = fixed
    return starts[:openings], moves[:openings], f"{start.game}-a"


def _both_seats(
    player: Player, other: Player, starts: list[GameState], moves: list[list[int]], bar: tqdm
) -> list[float]:
    """`player`'s score in each game: every start once in each seat (a game that runs
    past `ply_limit` is a draw), the first-seat games first; `bar` counts the games."""
    return play_pairs(player, other, starts, moves, on_game=lambda _: bar.update()).games()


def lead_for(tries: int, false_share: float = 0.05) -> float:
    """The standard errors a candidate must be ahead at a network's `tries`-th gate since
    it was last promoted: at least two, and more the more often it has been tried, so
    that weights no better pass one of all those tries about `false_share` of the time
    (Bonferroni) rather than once in every 44 tries.

    >>> [round(lead_for(n), 2) for n in (1, 5, 20, 100)]
    [2.0, 2.33, 2.81, 3.29]
    """
    return max(2.0, NormalDist().inv_cdf(1 - false_share / max(1, tries)))


def paired(
    candidate: list[float], incumbent: list[float], groups: Sequence[Hashable] | None = None
) -> tuple[float, float]:
    """(mean, standard error) of the paired differences candidate - incumbent (clustered
    by `groups`, as `mean_se`).

    >>> paired([1.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0])
    (-0.25, 0.25)
    """
    return mean_se([c - i for c, i in zip(candidate, incumbent)], groups)


def _perfect(
    exact: tuple[list[float], list[float]], groups: Sequence[Hashable] | None = None
) -> tuple[list[float], Measure]:
    """(% kept by each of the two, the paired measure of it) on a solved set whose
    positions are `groups`."""
    shares = [100.0 * sum(kept) / len(kept) for kept in exact]
    gain, error = paired(*exact, groups)
    return shares, Measure(
        "value kept against perfect play",
        gain,
        error,
        f"of them against perfect play: keeps the exact value in {shares[0]:.1f}% of the "
        f"solved positions, the weights it would replace in {shares[1]:.1f}% (standard "
        f"error {100 * error:.1f})",
    )


def gate(
    candidate: Player,
    incumbent: Player,
    opponents: Sequence[str],
    start: GameState,
    *,
    openings: int = 100,
    plies: int = 4,
    seed: int = 0,
    z: float = BEHIND,
    lead: float = LEAD,
    exact: tuple[list[float], list[float]] | None = None,
    groups: Sequence[Hashable] | None = None,
) -> GateResult:
    """Play the gate's games and apply its rule (see the module's docstring);
    `opponents` are registry specs, each made with `seed` for either side's games;
    `exact`: the candidate's and the incumbent's 1 (kept) or 0 in each solved position,
    `groups` those positions' keys (`SolvedPosition.key`)."""
    if openings < 1:
        raise ValueError(f"the gate needs at least 1 opening, not {openings}")
    if exact is not None:
        shares, perfect = _perfect(exact, groups)
        first = decide(perfect, lead=lead, ties=True)
        if not first.promoted:
            return GateResult(False, first.reason, 0, None, kept_share=shares)
    starts, moves = gate_openings(start, openings, plies, seed)
    games = 2 * len(starts) * (1 + 2 * len(opponents))
    with tqdm(total=games, desc="gate", unit="game", file=sys.stderr, mininterval=5) as bar:
        head = _both_seats(candidate, incumbent, starts, moves, bar)
        sides = {
            spec: [  # made afresh for each side: the same dice for both
                _both_seats(player, make_player(spec, seed=seed), starts, moves, bar)
                for player in (candidate, incumbent)
            ]
            for spec in opponents
        }
    return verdict(head, sides, exact, z, lead, groups)


def verdict(
    head: list[float],
    sides: dict[str, list[list[float]]],
    exact: tuple[list[float], list[float]] | None = None,
    z: float = BEHIND,
    lead: float = LEAD,
    groups: Sequence[Hashable] | None = None,
) -> GateResult:
    """The gate's rule (the module's docstring, by `decide`) on what its games gave:
    `head`, the candidate's score in each game against the incumbent (each opening in the
    first seat, then in the second); `sides`, for each fixed opponent, the candidate's and
    the incumbent's scores in the same games; `exact`, both players' 1 or 0 in each
    solved position, whose keys are `groups`."""
    shares, perfect = _perfect(exact, groups) if exact is not None else (None, None)
    half = len(head) // 2  # each opening in the first seat, then in the second
    head_to_head, head_error = mean_se([(a + b) / 2 for a, b in zip(head[:half], head[half:])])
    against, others, mine_all, theirs_all = {}, [], [], []
    for spec, (mine, theirs) in sides.items():
        mean, error = paired(mine, theirs)
        mine_all, theirs_all = mine_all + mine, theirs_all + theirs
        against[spec] = {
            "candidate": sum(mine) / len(mine),
            "incumbent": sum(theirs) / len(theirs),
            "standard_error": error,
        }
        others.append(Measure(f"score against {spec}", mean, error))
    gain, error = paired(mine_all, theirs_all) if sides else (0.0, 0.0)
    versus = f"{gain:+.3f} a game against {', '.join(sides)} (standard error {error:.3f})"
    main = perfect or Measure(
        f"score against {', '.join(sides)}", gain, error, f"of them: {versus}"
    )
    said = f"{head_to_head:.1%} ± {head_error:.1%}"
    decided = decide(
        main,
        others,
        Measure("score against the incumbent", head_to_head - 0.5, head_error, said),
        lead=lead,
        behind=z,
        ties=True,
        incumbent="the weights it would replace",
    )
    return GateResult(decided.promoted, decided.reason, len(head), head_to_head, against, shares)
