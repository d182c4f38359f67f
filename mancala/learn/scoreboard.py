"""The scoreboard of a game without solved positions (Sungka's az-net, Tak's guides): game
pairs on the game's fixed opening set, the new player and the old paired opening by opening.

The candidate and the player it would replace (the incumbent) each play the same openings
of the game's shipped set (both seats) against the same fixed anchors (the registry's
`anchors`), and one another. On every opening the candidate's pair score and its mean
final margin against an anchor are set beside the incumbent's: the mean of those paired
differences, with its standard error over the openings, sees a gain of a point that the
two scores alone would hide. On Sungka the seat decides most games between strong
players (most pairs split one game each), so both players' scores sit near half while
their differences are mostly zero.

The rule is the lab's one (`mancala.learn.verdict`): the main measure is the score against
the first anchor, or where the game says so, its margin (the game's `main_measure`);
every other measure (the margin against every anchor, the score against the others) may
not be behind; a difference of exactly nothing is no gain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mancala.arena.pairs import Pairs
from mancala.arena.parallel import Workers
from mancala.arena.solved_set import mean_se
from mancala.arena.tournament import played_pairs, run_tournament
from mancala.learn.verdict import BEHIND, LEAD, Measure, Verdict, decide

SCORE, MARGIN = "score", "margin"  # the kinds of measure, against an anchor
CANDIDATE, INCUMBENT = "candidate", "incumbent"


@dataclass
class Scoreboard:
    """The game pairs of a scoreboard: the candidate's against the incumbent (`head`),
    and each anchor's name -> (the candidate's pairs, the incumbent's) on the same openings;
    the seconds each player took a move, by its role (CANDIDATE, INCUMBENT) or name."""

    head: Pairs
    against: dict[str, tuple[Pairs, Pairs]]
    seconds: dict[str, float] = field(default_factory=dict)  # a move, by role or anchor

    def measures(self) -> dict[str, tuple[float, float]]:
        """Each measure's name -> (mean paired difference candidate - incumbent, its
        standard error): the score (0..1 a game) against each anchor, then the final
        margin a game against each anchor, where the game keeps scores.

        >>> won = Pairs([(1,), (2,)], [[1, 1], [1, 0]], [[3, 1], [2, -4]])
        >>> split = Pairs([(1,), (2,)], [[1, 0], [1, 0]], [[2, -2], [2, -6]])
        >>> Scoreboard(won, {"greedy": (won, split)}).measures()
        {'score against greedy': (0.25, 0.25), 'margin against greedy': (1.5, 0.5)}
        """
        out = {}
        for anchor, (mine, theirs) in self.against.items():
            out[f"{SCORE} against {anchor}"] = _paired(mine, theirs, _pair_score)
        for anchor, (mine, theirs) in self.against.items():
            if mine.margin() is not None and theirs.margin() is not None:
                out[f"{MARGIN} against {anchor}"] = _paired(mine, theirs, _pair_margin)
        return out

    def verdict(self, lead: float = LEAD, behind: float = BEHIND, main: str = SCORE) -> Verdict:
        """(promoted, the reason in words) by the one rule (`decide`), its main measure
        of the kind `main` (SCORE or MARGIN) against the first anchor, the others each
        measure against every anchor.

        >>> even = Pairs([(1,), (2,), (3,)], [[1, 0]] * 3, [[2, -2]] * 3)
        >>> wider = Pairs([(1,), (2,), (3,)], [[1, 0]] * 3, [[4, -1], [5, -1], [6, -1]])
        >>> board = Scoreboard(even, {"greedy": (wider, even)})
        >>> board.verdict()[0], board.verdict(main=MARGIN)[0]
        (False, True)
        >>> board.verdict(main=MARGIN)[1].split(";")[0]
        'ahead on the margin against greedy (+2.00 ± 0.29 a game)'
        """
        measures = self.measures()
        main = f"{main} against {next(iter(self.against))}"
        if main not in measures:
            raise ValueError(f"no {main} to decide on: the game keeps no scores")
        gain, error = measures.pop(main)
        score, head_error = self.head.score(), self.head.standard_error()
        return decide(
            Measure(main, gain, error, f"on the {main} ({_words(main, gain, error)})"),
            [Measure(name, mean, se) for name, (mean, se) in measures.items()],
            Measure("head to head", score - 0.5, head_error, f"{score:.1%} ± {head_error:.1%}"),
            lead=lead,
            behind=behind,
        )

    def lines(self) -> list[str]:
        """The scoreboard in words, a line a measure and one for the head-to-head."""
        out = []
        for anchor, (mine, theirs) in self.against.items():
            both = ", ".join(
                f"{who} {_figures(p)}" for who, p in ((CANDIDATE, mine), (INCUMBENT, theirs))
            )
            out.append(f"  against {anchor}: {both}")
        for name, (mean, error) in self.measures().items():
            out.append(f"  paired, {name}: {_words(name, mean, error)}")
        out.append(f"  {CANDIDATE} against {INCUMBENT}: {_figures(self.head)}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """The figures of a gate record (JSON-safe)."""
        return {
            "head_to_head": self.head.to_dict(),
            "against": {
                anchor: {CANDIDATE: mine.to_dict(), INCUMBENT: theirs.to_dict()}
                for anchor, (mine, theirs) in self.against.items()
            },
            "paired": {
                name: {"difference": round(mean, 4), "standard_error": round(error, 4)}
                for name, (mean, error) in self.measures().items()
            },
            "seconds_per_move": {name: round(s, 4) for name, s in self.seconds.items()},
        }


def play_scoreboard(
    candidate: str,
    incumbent: str,
    anchors: Sequence[str],
    start: Any,
    openings: list[list[int]],
    *,
    seed: int = 0,
    workers: Workers | None = None,
    progress: bool = True,
) -> Scoreboard:
    """The players named `candidate` and `incumbent` (registry names) each against every
    one of `anchors`, and against one another, from each of `openings` of `start` in
    both seats, on `workers` (default: here)."""
    if not anchors:
        raise ValueError("a scoreboard needs at least one anchor")
    names = [candidate, incumbent, *anchors]
    if len(set(names)) != len(names):
        raise ValueError(f"a scoreboard's players must differ: {', '.join(names)}")
    pairings = [(candidate, incumbent)] + [(p, a) for a in anchors for p in names[:2]]
    result = run_tournament(
        names,
        len(openings),
        start,
        seed=seed,
        openings=openings,
        workers=workers,
        progress=progress,
        pairings=pairings,
    )
    roles = {candidate: CANDIDATE, incumbent: INCUMBENT}
    return Scoreboard(
        played_pairs(result, candidate, incumbent),
        {a: tuple(played_pairs(result, p, a) for p in names[:2]) for a in anchors},
        {roles.get(n, n): s for n, s in result["seconds_per_move"].items()},
    )


def _pair_score(points: list[float], margins: list[float | None]) -> float:
    return sum(points) / 2


def _pair_margin(points: list[float], margins: list[float | None]) -> float:
    return sum(margins) / 2


def _paired(mine: Pairs, theirs: Pairs, of) -> tuple[float, float]:
    """(mean, standard error) over the openings both played of `of`(pair) mine - theirs."""
    theirs_by = {o: (p, m) for o, p, m in zip(theirs.openings, theirs.points, theirs.margins)}
    differences = [
        of(points, margins) - of(*theirs_by[opening])
        for opening, points, margins in zip(mine.openings, mine.points, mine.margins)
        if opening in theirs_by
    ]
    if len(differences) < 2:
        raise ValueError("a scoreboard needs at least two openings both players played")
    return mean_se(differences)


def _figures(pairs: Pairs) -> str:
    """score % ± its standard error, the pentanomial counts, the mean margin."""
    margin = pairs.margin()
    seeds = "" if margin is None else f", margin {margin:+.2f}"
    counts = " ".join(map(str, pairs.pentanomial()))
    return f"{100 * pairs.score():.1f}% ± {100 * pairs.standard_error():.1f} ({counts}{seeds})"


def _words(name: str, gain: float, error: float) -> str:
    """A paired difference in words: points of score, or seeds of margin, a game."""
    if name.startswith(SCORE):
        return f"{100 * gain:+.1f} ± {100 * error:.1f} points a game"
    return f"{gain:+.2f} ± {error:.2f} a game"
