"""Gumbel AlphaZero's root (Danihelka, Guez, Schrittwieser and Silver, ICLR 2022): a
policy improvement that holds at a handful of simulations.

The root samples moves without replacement by the Gumbel-top-k trick (a Gumbel variable
g(a) added to each legal move's log prior) and spends its simulations by sequential
halving over the best `considered` of them: in each phase every move still considered
gets the same visits, then the worse half by g(a) + log prior(a) + sigma(q(a)) drops out
(`considered_visits` is the visit count the root wants next, simulation by simulation;
the move searched is the considered one of that count with the highest score). The move
played is the survivor, and the policy target is softmax(log prior + sigma(completed q)):
a move's completed q is its mean value where it was visited, else `mixed_value` (the
network's value mixed with the visited moves' means, weighted by their priors); sigma
rescales the completed values to 0..1 over the legal moves and multiplies them by
(C_VISIT + the most visits of a move) * C_SCALE. The constants are those of the paper and
of DeepMind's mctx.

The PUCT driver (`mancala.ai.puct`) calls the numba functions here at every root step;
the players call them from Python on a finished search, so both read one implementation.
"""

from __future__ import annotations

import math

import numpy as np

from mancala.core.jit import njit

C_VISIT = 50.0
C_SCALE = 0.1
CONSIDERED = 16  # the most moves the root samples (the paper's m)
TINY = 1e-30  # a prior of 0 (an illegal move) as a log prior of about -69


def considered_visits(considered: int, simulations: int) -> np.ndarray:
    """The visit count the root wants for its next move, simulation by simulation:
    sequential halving over `considered` moves (at least two kept to the end).

    >>> considered_visits(4, 16).tolist()
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    >>> considered_visits(1, 3).tolist()
    [0, 1, 2]
    """
    if considered <= 1:
        return np.arange(simulations, dtype=np.int64)
    phases = math.ceil(math.log2(considered))
    sequence: list[int] = []
    visits = [0] * considered
    alive = considered
    while len(sequence) < simulations:
        extra = max(1, simulations // (phases * alive))
        for _ in range(extra):
            sequence.extend(visits[:alive])
            for i in range(alive):
                visits[i] += 1
        alive = max(2, alive // 2)
    return np.array(sequence[:simulations], dtype=np.int64)


@njit(cache=True, nogil=True)
def mixed_value(value, priors, visits, means, legal):
    """The network's `value` of the root mixed with the mean values of its visited
    moves, weighted by their priors (the completed value of an unvisited move)."""
    total = 0.0
    weight = 0.0
    weighted = 0.0
    for a in range(legal.shape[0]):
        if legal[a] and visits[a] > 0:
            total += visits[a]
            weight += priors[a]
            weighted += priors[a] * means[a]
    if total == 0.0 or weight <= 0.0:
        return value
    return (value + total * weighted / weight) / (1.0 + total)


MIN_MAX = np.zeros(2)  # sigma's bounds: the completed values' own least and most
FIXED = np.array([-1.0, 1.0])  # ... or the value's whole range


@njit(cache=True, nogil=True)
def sigma_scores(value, priors, visits, means, legal, out, bounds):
    """log prior + sigma(completed q) of every legal move into `out` (-inf elsewhere),
    sigma rescaling q from `bounds` (low, high) to 0..1, or from the completed values'
    own least and most where low == high (`MIN_MAX`)."""
    mixed = mixed_value(value, priors, visits, means, legal)
    low, high, most = np.inf, -np.inf, 0.0
    for a in range(legal.shape[0]):
        if legal[a]:
            q = means[a] if visits[a] > 0 else mixed
            out[a] = q
            low, high, most = min(low, q), max(high, q), max(most, visits[a])
    if bounds[0] < bounds[1]:
        low, high = bounds[0], bounds[1]
    spread = max(high - low, 1e-8)
    for a in range(legal.shape[0]):
        if legal[a]:
            rescaled = (out[a] - low) / spread
            out[a] = math.log(max(priors[a], TINY)) + (C_VISIT + most) * C_SCALE * rescaled
        else:
            out[a] = -np.inf


@njit(cache=True, nogil=True)
def root_move(target, gumbel, value, priors, visits, means, legal, scratch):
    """The root's next move to search: of the legal moves with `target` visits, the one
    of highest g + log prior + sigma(completed q); -1 when none has that count."""
    sigma_scores(value, priors, visits, means, legal, scratch, MIN_MAX)
    best, move = -np.inf, -1
    for a in range(legal.shape[0]):
        if legal[a] and visits[a] == target and gumbel[a] + scratch[a] > best:
            best, move = gumbel[a] + scratch[a], a
    return move


def improved_policy(
    value: float,
    priors: np.ndarray,
    visits: np.ndarray,
    means: np.ndarray,
    legal: np.ndarray,
    bounds: np.ndarray = MIN_MAX,
) -> np.ndarray:
    """softmax(log prior + sigma(completed q)) over the legal moves (0 elsewhere): the
    policy target of a searched position (sigma's `bounds` as `sigma_scores` takes them).

    >>> legal = np.ones(2, bool)
    >>> close = dict(priors=np.full(2, 0.5), visits=np.full(2, 8.0), means=np.array([0.3, 0.301]))
    >>> improved_policy(0.0, legal=legal, **close).round(2).tolist()
    [0.0, 1.0]
    >>> improved_policy(0.0, legal=legal, bounds=FIXED, **close).round(2).tolist()
    [0.5, 0.5]
    """
    scores = np.empty(len(legal))
    sigma_scores(float(value), priors, visits.astype(np.float64), means, legal, scores, bounds)
    scores[legal] -= scores[legal].max()
    policy = np.where(legal, np.exp(scores), 0.0)
    return policy / policy.sum()


def search_value(
    value: float, priors: np.ndarray, visits: np.ndarray, means: np.ndarray, legal: np.ndarray
) -> float:
    """The root's value as the search finds it: the improved policy's expectation of the
    completed values (a move's mean, the mixed value where unvisited), so the visits
    sequential halving spent on moves it then dropped do not pull it down."""
    policy = improved_policy(value, priors, visits, means, legal)
    mixed = mixed_value(float(value), priors, visits.astype(np.float64), means, legal)
    completed = np.where(visits > 0, means, mixed)
    return float(policy[legal] @ completed[legal])


def chosen_move(
    gumbel: np.ndarray,
    value: float,
    priors: np.ndarray,
    visits: np.ndarray,
    means: np.ndarray,
    legal: np.ndarray,
) -> int:
    """The move a Gumbel search plays: of the most visited legal moves (the last
    considered), the one of highest g + log prior + sigma(completed q)."""
    visits = visits.astype(np.float64)
    most = visits[legal].max()
    scratch = np.empty(len(legal))
    return int(root_move(most, gumbel, float(value), priors, visits, means, legal, scratch))
