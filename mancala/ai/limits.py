"""The bounds on a player's work: the parameters a name may carry, and `Limits`.

Design: every parameter of every player is declared once, in its registry entry, as a
`Param` (the keyword its factory takes, the bounds, a default), and `parse_param` is the
one parser of the text after the colon (`minimax:8`, `minimax:t=1.5`, `mcts:5_000`), so
every out-of-bounds name gets the same message: "mcts simulations must be 1..10000000,
not 200000000". The registry's bounds make any name finish in bounded time and memory
on any board. On top of them a caller (the web API) passes tighter `Limits`:

- `seconds`: a hard deadline on each search call (`mancala.core.deadline`); a search
  still running then returns its best move so far. Every search player obeys it, so a
  fixed-depth search or a long exact solve is cut at the cap rather than running on.
  A `t=SECONDS` parameter may not ask for more than it.
- `memory`: the bytes one search may allocate for its tree or table (mcts's node pool,
  minimax's transposition table, OpenSpiel's tree).
- `build`: whether a player may first build a missing table that outlives the move
  (the solver's endgame database: seconds to minutes, not cut by the deadline).
- `caps`: the largest value a parameter kind ("simulations", "playouts", "depth") may
  take, below the registry's own bound; a name over it is refused (ValueError naming the
  bound and the largest value allowed), not silently cut.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

MAX_SECONDS = 3600.0  # the longest any search may think about one move (the registry's cap)
MAX_MEMORY = 1 << 30  # bytes for one search's tree or table (the registry's cap)
MIN_SECONDS = 0.001
MAX_DEPTH = 100  # minimax's deepest search
DEFAULT_SECONDS = 0.5  # an alpha-beta's time a move when it is given neither depth nor time


@dataclass(frozen=True)
class Limits:
    """The most one search may do: `seconds` a call, `memory` bytes, whether it may
    `build` a missing table first, and `caps` on each parameter kind."""

    seconds: float = MAX_SECONDS
    memory: int = MAX_MEMORY
    build: bool = True
    caps: Mapping[str, float] = field(default_factory=dict)

    def bound(self, param: Param) -> float:
        """The largest value `param` may take under these limits."""
        cap = self.seconds if param.kind == "seconds" else math.inf
        return min(param.high, cap, self.caps.get(param.kind, math.inf))

    def within(self, seconds: float) -> Limits:
        """These limits with at most `seconds` a call (at least MIN_SECONDS)."""
        return replace(self, seconds=max(MIN_SECONDS, min(seconds, self.seconds)))


REGISTRY_LIMITS = Limits()


@dataclass(frozen=True)
class Param:
    """A parameter a player's name may carry: the factory's keyword `kind`, whole numbers
    in low..high (or seconds after the prefix "t="), or one of `choices` after the prefix
    "KIND=" (`rollout=greedy`), and the value used when none is given (None: the
    factory's own, e.g. the solver's "as long as the limits allow")."""

    kind: str
    low: float
    high: float
    default: float | None = None
    choices: tuple[str, ...] = ()

    @property
    def prefix(self) -> str:
        if self.choices:
            return f"{self.kind}="
        return "t=" if self.kind == "seconds" else ""

    @property
    def form(self) -> str:
        if self.choices:
            return f"{self.prefix}{'|'.join(self.choices)}"
        return f"{self.prefix}{self.kind.upper()}"

    def range(self, limits: Limits) -> str:
        """'1..100': the values allowed under `limits`."""
        return f"{show(self.low)}..{show(limits.bound(self))}"

    def read(self, text: str) -> float | str | None:
        """The value in `text` if it has this parameter's form (a number not yet
        bounded), else None."""
        if not text.startswith(self.prefix):
            return None
        body = text[len(self.prefix) :]
        if self.choices:
            return body if body in self.choices else None
        if self.kind == "seconds":
            try:
                value = float(body)
            except ValueError:
                return None
            return value if math.isfinite(value) else None
        digits = body.replace("_", "")
        return int(digits) if digits.isdigit() and digits.isascii() else None

    def words(self, limits: Limits) -> str:
        """The parameter's form and values in words, for an error message."""
        return self.form if self.choices else f"{self.form} ({self.range(limits)})"


def depth_or_time(depth: int | None, seconds: float | None) -> tuple[int | None, float | None]:
    """An alpha-beta's (depth, seconds), checked: DEFAULT_SECONDS when neither is given.

    >>> depth_or_time(None, None), depth_or_time(8, None)
    ((None, 0.5), (8, None))
    """
    if depth is None and seconds is None:
        seconds = DEFAULT_SECONDS
    if depth is not None and not 0 < depth <= MAX_DEPTH:
        raise ValueError(f"minimax depth must be 1..{MAX_DEPTH}, not {depth!r}")
    if seconds is not None and not 0 < seconds < float("inf"):
        raise ValueError(f"minimax seconds must be a positive number, not {seconds!r}")
    return depth, seconds


def depth(high: int, default: int | None = None) -> Param:
    return Param("depth", 1, high, default)


def count(kind: str, high: int, default: int) -> Param:
    """A number of simulations, playouts... from 1 to `high`."""
    return Param(kind, 1, high, default)


def choice(kind: str, choices: tuple[str, ...]) -> Param:
    """`KIND=NAME`: one of `choices`, the factory's own default when not given."""
    return Param(kind, 0, 0, None, choices)


def seconds(default: float | None = None) -> Param:
    """`t=SECONDS`: thinking time a move, up to MAX_SECONDS (and the limits' seconds)."""
    return Param("seconds", MIN_SECONDS, MAX_SECONDS, default)


def show(value: float) -> str:
    """A bound as text: whole numbers plain, seconds shortest.

    >>> show(10_000_000), show(0.001), show(2.0)
    ('10000000', '0.001', '2')
    """
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def parse_param(
    player: str, params: tuple[Param, ...], text: str | None, limits: Limits = REGISTRY_LIMITS
) -> dict[str, float | str]:
    """The factory keywords of `text` (None: the defaults), checked against the bounds;
    parameters of different kinds are separated by commas.

    >>> mcts = (count("simulations", 10_000_000, 20_000), choice("rollout", ("a", "b")))
    >>> parse_param("mcts", mcts, "5_000"), parse_param("mcts", mcts, None)
    ({'simulations': 5000}, {'simulations': 20000})
    >>> parse_param("mcts", mcts, "300,rollout=b"), parse_param("mcts", mcts, "rollout=a")
    ({'simulations': 300, 'rollout': 'b'}, {'rollout': 'a'})
    >>> parse_param("mcts", mcts, "200000000")
    Traceback (most recent call last):
    ...
    ValueError: mcts simulations must be 1..10000000, not 200000000
    >>> parse_param("mcts", mcts, "rollout=c")
    Traceback (most recent call last):
    ...
    ValueError: mcts takes SIMULATIONS (1..10000000) or rollout=a|b, not 'rollout=c'
    >>> parse_param("minimax", (depth(100), seconds(0.5)), "t=9", Limits(seconds=2))
    Traceback (most recent call last):
    ...
    ValueError: minimax seconds must be 0.001..2, not 9
    >>> parse_param("minimax", (depth(100), seconds(0.5)), "8,t=1")
    Traceback (most recent call last):
    ...
    ValueError: minimax takes one of DEPTH (1..100) or t=SECONDS (0.001..3600), not '8,t=1'
    """
    if text is None:
        chosen = [(p, p.default) for p in params if p.default is not None][:1]
    else:
        chosen = []
        for part in text.split(","):
            found = [(p, v) for p in params if (v := p.read(part)) is not None][:1]
            if not found:
                forms = " or ".join(p.words(limits) for p in params)
                raise ValueError(f"{player} takes {forms}, not {part!r}")
            chosen += found
        numbers = [p for p, _ in chosen if not p.choices]
        if len({p.kind for p, _ in chosen}) < len(chosen) or len(numbers) > 1:
            forms = " or ".join(p.words(limits) for p in params)
            raise ValueError(f"{player} takes one of {forms}, not {text!r}")
    for param, value in chosen:
        if param.choices:
            continue
        high = limits.bound(param)
        if not param.low <= value <= high:
            raise ValueError(
                f"{player} {param.kind} must be {param.range(limits)}, not {show(value)}"
            )
    return {param.kind: value for param, value in chosen}
