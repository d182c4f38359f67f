"""Elo-scale ratings fitted to game results (Bradley-Terry), with standard errors.

Every game counts: a win 1, a draw 1/2. The fit maximises the likelihood of all results
at once (not Elo's order-dependent updates), with one virtual draw between every pair
that met, so a player who won every game still gets a finite rating. Ratings average
1500; the uncertainty is one standard error from the curvature of the likelihood.

>>> r = fit_ratings(["a", "b"], {("a", "b"): (30, 0, 10)})
>>> round(r["a"][0] - r["b"][0])  # a scored 30.5 of 41: odds of 30.5 to 10.5
185
>>> 20 < r["a"][1] < 50  # one standard error of each rating
True
"""

from __future__ import annotations

import math

import numpy as np

ELO = 400 / math.log(10)


def fit_ratings(
    players: list[str], results: dict[tuple[str, str], tuple[int, int, int]]
) -> dict[str, tuple[float, float]]:
    """{player: (rating, standard error)} from {(a, b): (a's wins, draws, b's wins)}."""
    index = {name: i for i, name in enumerate(players)}
    n = len(players)
    games = np.zeros((n, n))  # games[i, j]: games between i and j (+1 virtual draw)
    score = np.zeros((n, n))  # score[i, j]: points i took from j (+1/2 virtual)
    for (a, b), (wins, draws, losses) in results.items():
        i, j = index[a], index[b]
        total = wins + draws + losses + 1
        games[i, j] += total
        games[j, i] += total
        score[i, j] += wins + draws / 2 + 0.5
        score[j, i] += losses + draws / 2 + 0.5
    r = np.zeros(n)
    hessian = np.zeros((n, n))
    for _ in range(100):  # Newton's method on the log-likelihood
        p = 1 / (1 + np.exp(r[None, :] - r[:, None]))  # p[i, j]: i beats j
        gradient = (score - games * p).sum(axis=1)
        w = games * p * (1 - p)
        hessian = np.diag(w.sum(axis=1)) - w
        step = np.linalg.pinv(hessian) @ gradient
        r += step - step.mean()
        if np.abs(step).max() < 1e-9:
            break
    covariance = np.linalg.pinv(hessian)
    errors = np.sqrt(np.clip(np.diag(covariance), 0, None))
    return {name: (float(1500 + ELO * r[i]), float(ELO * errors[i])) for name, i in index.items()}
