"""The one rule by which a candidate replaces what it would replace (the incumbent), on
paired evidence.

Every gate of the lab (the zoo's networks, az-net, the DQN's nets, Tak's evaluation and
guide, self-play's generations) and the expert check decide by `decide`. The evidence is
a few measures of the candidate against the incumbent on the same positions or openings,
each the mean of the paired differences candidate - incumbent with its standard error:

1. head to head, where the two met, the candidate's score may fall below half by at most
   `behind` standard errors (noise);
2. the main measure must be ahead by `lead` standard errors, and by `at_least`; where
   `ties` is false, a difference of exactly nothing (every paired difference 0) is no
   evidence and is refused;
3. no other measure may be behind by more than `behind` standard errors.

The first and third keep a candidate that only learnt to beat the fixed opponents from
losing to its predecessor, and one that only learnt to beat its predecessor from losing
what the predecessor could do against the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

LEAD = 2.0  # standard errors the main measure must be ahead by
BEHIND = 2.0  # standard errors any other measure may be behind by


@dataclass(frozen=True)
class Measure:
    """A paired difference candidate - incumbent: its `name`, mean and standard error,
    and `said`, how it reads after "ahead" ("on the score against greedy (+1.2 ± 0.5
    points a game)")."""

    name: str
    difference: float
    error: float
    said: str = ""

    def behind(self, z: float) -> bool:
        """Below nothing by more than `z` standard errors."""
        return self.difference < -z * self.error


class Verdict(NamedTuple):
    promoted: bool
    reason: str


def decide(
    main: Measure,
    others: Sequence[Measure] = (),
    head: Measure | None = None,
    *,
    lead: float = LEAD,
    behind: float = BEHIND,
    ties: bool = False,
    at_least: float = 0.0,
    incumbent: str = "the incumbent",
) -> Verdict:
    """The rule of the module's text. `head`: the candidate's score against the
    incumbent less a half (its `said` the score in words); `incumbent` how the reasons
    name it.

    >>> gain = Measure("score", 0.05, 0.02, "on the score (+5.0 ± 2.0 points)")
    >>> decide(gain).promoted, decide(gain, lead=3).reason
    (True, 'not 3 standard errors ahead on the score (+5.0 ± 2.0 points)')
    >>> decide(gain, [Measure("margin against greedy", -0.5, 0.2)]).reason
    'ahead on the score (+5.0 ± 2.0 points), but behind on the margin against greedy'
    >>> same = Measure("same", 0.0, 0.0)
    >>> decide(same).promoted, decide(same, ties=True).promoted
    (False, True)
    """
    if head is not None and head.behind(behind):
        return Verdict(False, f"scored {head.said} against {incumbent}")
    ahead = main.difference >= max(lead * main.error, at_least)
    if not ahead or (not ties and main.difference <= 0):
        return Verdict(False, f"not {lead:.3g} standard errors ahead {main.said}".rstrip())
    weaker = [measure.name for measure in others if measure.behind(behind)]
    if weaker:
        return Verdict(False, f"ahead {main.said}, but behind on the {', '.join(weaker)}")
    scored = f"; scored {head.said} against {incumbent}" if head is not None else ""
    return Verdict(True, f"ahead {main.said}{scored}")
