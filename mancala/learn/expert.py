"""The expert check: before a search's values replace the alpha-beta's as a run's labels,
the search is shown the stronger labeller; otherwise the alpha-beta labels.

A teacher plays as its labels say (`TeacherPlayer`: the legal move it values highest).
Where a held-out set of solved positions ships for the board (Kalah(6,4)), both teachers
choose a move in the same positions of it (distinct ones, spread through the set: its
first hundred are eight positions, the start 59 times), and the search must keep the
exact value in more of them by two standard errors of the paired differences.
Elsewhere (Sungka) the two play game pairs from the game's fixed opening set, and the
search must score above half by two standard errors (on a board of other rules than the
set's, from random 2-ply openings of it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mancala.ai.base import Player
from mancala.arena.pairs import play_pairs
from mancala.arena.solved_set import mean_se, move_losses, shipped_set
from mancala.learn.gate import fixed_or_random_openings
from mancala.learn.teacher import Teacher
from mancala.learn.verdict import LEAD, Measure, decide

POSITIONS = 500  # distinct ones of the held-out set, spread through it
OPENINGS = 50  # of the fixed set, its first, each in both seats


def spread(positions: list, count: int) -> list:
    """`count` distinct positions of `positions` (by `key`), evenly spaced through them
    in their order; all the distinct ones where there are fewer."""
    distinct = list({position.key: position for position in positions}.values())
    step = max(1.0, len(distinct) / max(1, count))
    return [distinct[int(k * step)] for k in range(min(count, len(distinct)))]


class TeacherPlayer(Player):
    """Plays the legal move its teacher values highest (the lowest on a tie)."""

    def __init__(self, teacher: Teacher) -> None:
        super().__init__()
        self.teacher, self.name = teacher, teacher.name

    def choose_move(self, state) -> int:
        values = self.teacher.move_values(state)
        legal = state.legal_moves()
        if len(values) != len(legal):  # a sowing game's row is by house, None where illegal
            values = [values[move] for move in legal]
        return legal[max(range(len(legal)), key=lambda i: (values[i], -i))]


@dataclass(frozen=True)
class ExpertCheck:
    """Whether the search labels (`stronger`), and what the check saw, in words."""

    stronger: bool
    said: str


def check_expert(
    start,
    search: Teacher,
    alpha_beta: Teacher,
    positions: int = POSITIONS,
    openings: int = OPENINGS,
    progress: Callable[[str], None] = print,
) -> ExpertCheck:
    """The expert check (the module's text) of the teacher `search` against `alpha_beta`
    on the board of `start`: over the first `positions` of its held-out set where one
    ships, else game pairs from the first `openings` of its fixed set."""
    mine, theirs = TeacherPlayer(search), TeacherPlayer(alpha_beta)
    solved = spread(shipped_set(start, "held-out"), positions)
    if solved:
        progress(f"expert check: {mine.name} and {theirs.name} on {len(solved)} solved positions")
        kept = [
            [float(loss == 0) for loss in move_losses(player.choose_moves, solved)]
            for player in (mine, theirs)
        ]
        gain, error = mean_se([a - b for a, b in zip(*kept)])
        shares = [100 * sum(k) / len(k) for k in kept]
        said = (
            f"{mine.name} keeps the value in {shares[0]:.1f}% of {len(solved)} held-out "
            f"positions, {theirs.name} in {shares[1]:.1f}% ({100 * gain:+.1f} ± "
            f"{100 * error:.1f} points)"
        )
    else:
        starts, moves, fixed = fixed_or_random_openings(start, openings, seed=0)
        where = "of the fixed set" if fixed else "of random 2-ply openings"
        progress(f"expert check: {mine.name} against {theirs.name}, {len(starts)} game pairs")
        pairs = play_pairs(mine, theirs, starts, moves)
        gain, error = pairs.score() - 0.5, pairs.standard_error()
        said = (
            f"{mine.name} scored {100 * pairs.score():.1f}% ± {100 * error:.1f} against "
            f"{theirs.name} in {len(starts)} game pairs {where}"
        )
    stronger = decide(Measure("labels", gain, error)).promoted
    behind = f"not {LEAD:g} standard errors ahead: {theirs.name} labels"
    verdict = f"{mine.name} labels" if stronger else behind
    return ExpertCheck(stronger, f"{said}; {verdict}")
