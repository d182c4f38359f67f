"""Pictures of results (matplotlib PNGs): how every picture of the lab is made and saved,
and the win-rate heatmap of a tournament."""

from __future__ import annotations

import os
from typing import Any

from mancala.arena.results import Tally
from mancala.core.atomic import atomic_path


def subplots(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """A new figure and its axes, as `matplotlib.pyplot.subplots` makes them, drawn
    off-screen (no display is needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(*args, **kwargs)


def save_figure(figure: Any, path: str | os.PathLike) -> None:
    """Write `figure` to `path` as PNG atomically (temp file, then rename) and close it."""
    import matplotlib.pyplot as plt

    with atomic_path(path, ".png") as temp:
        figure.savefig(temp, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)


def win_rate_heatmap(result: dict[str, Any], path: str | os.PathLike) -> None:
    """A heatmap of the row player's win % against each column player of a tournament."""
    import numpy as np

    specs = result["players"]
    n = len(specs)
    rates = np.full((n, n), np.nan)
    for i, a in enumerate(specs):
        for j, b in enumerate(specs):
            if a != b:
                rates[i, j] = Tally.from_dict(result["results"][a][b]).win_percent()
    figure, axes = subplots(figsize=(1.0 + 0.6 * n, 0.8 + 0.5 * n))
    image = axes.imshow(rates, cmap="RdYlGn", vmin=0, vmax=100)
    axes.set_xticks(range(n), specs, rotation=60, ha="right")
    axes.set_yticks(range(n), specs)
    for i in range(n):
        for j in range(n):
            if i != j:
                axes.text(j, i, f"{rates[i, j]:.0f}", ha="center", va="center", fontsize=8)
    games = result["games_per_seat"]
    axes.set_title(f"win % of row against column ({2 * games} games a pair)")
    figure.colorbar(image, ax=axes, shrink=0.8)
    save_figure(figure, path)
