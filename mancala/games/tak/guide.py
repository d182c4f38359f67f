"""az's guide on Tak: a value and a policy linear in the evaluation's features, which the
PUCT search (`mancala.ai.puct`, through `mancala.games.tak.kernel`) reads in place of a
network.

The value of a position is the board's alpha-beta evaluation (`evaluate.fitted_weights`,
its learned weights) squashed: tanh(value / scale). The policy's logit of a move is the
worth of the position it leads to for the player who made it, by the guide's own policy
weights (over the same `evaluate.WEIGHT_NAMES`): a move that wins gets all the prior, one
that leaves the other player a road in one none. The policy weights are fitted
(`mancala.learn.tak_fit`) to the alpha-beta's values of every legal move; the scale and
the fit's settings are in the same file, mancala/models/tak/az-guide-SIZE.json.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from mancala.core.atomic import atomic_path
from mancala.core.paths import MODELS_DIR
from mancala.games.tak.evaluate import WEIGHT_NAMES, fitted_weights
from mancala.games.tak.pieces import PIECES
from mancala.games.tak.state import TakState

NAME = "az-guide"
SCALE = 5.0  # flats: a made guide's value scale, tanh(value / scale), unless told otherwise


class GuideWeights(NamedTuple):
    """What the search reads: the value's weights, the policy's, and the value's scale."""

    value: np.ndarray
    policy: np.ndarray
    scale: float


def guide_file(size: int, models: Path = MODELS_DIR) -> Path:
    """Where the guide of `size`x`size` boards ships."""
    return Path(models) / TakState.game / f"{NAME}-{size}.json"


def guide_files(models: Path = MODELS_DIR) -> dict[int, Path]:
    """The guide files in the folder `models`, by board size."""
    files = {size: guide_file(size, models) for size in PIECES}
    return {size: path for size, path in files.items() if path.is_file()}


def read_guide(path: Path, size: int) -> GuideWeights:
    """The guide of boards of `size` in the file `path` (its value: the board's shipped
    evaluation); ValueError naming the file for any other file."""
    try:
        saved = json.loads(Path(path).read_text())
        names, policy = tuple(saved["policy"]), np.array(list(saved["policy"].values()), float)
        scale = float(saved["scale"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path} is not a guide: {error}") from None
    if names != WEIGHT_NAMES:
        raise ValueError(f"{path} does not weigh the evaluation's features {WEIGHT_NAMES}")
    if not (np.all(np.isfinite(policy)) and 0 < scale < np.inf):
        raise ValueError(f"{path}: the weights must be finite and the scale positive")
    return GuideWeights(fitted_weights(size), policy, scale)


def read_guide_file(path: Path) -> tuple[dict[str, Any], GuideWeights] | None:
    """(the board's options, the guide) of a file named as guides ship (az-guide-SIZE.json,
    anywhere), or None for a file of another name; ValueError when it holds no guide.

    >>> read_guide_file(Path("az-net.keras")) is None
    True
    """
    match = re.fullmatch(rf"{NAME}-(\d+)\.json", Path(path).name)
    if match is None:
        return None
    size = int(match[1])
    if size not in PIECES:
        raise ValueError(f"{path}: no Tak board of size {size}")
    return {"size": size}, read_guide(path, size)


def write_guide(path: Path, policy: np.ndarray, scale: float, about: dict[str, Any]) -> None:
    """Write a guide's policy weights and value scale with what made them, whole or not
    at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    saved = {
        "policy": dict(zip(WEIGHT_NAMES, map(float, policy), strict=True)),
        "scale": scale,
        **about,
    }
    with atomic_path(path) as temporary:
        temporary.write_text(json.dumps(saved, indent=1) + "\n")


@cache
def _shipped(path: Path, size: int, stamp: int) -> GuideWeights:
    return read_guide(path, size)


def shipped_guide(options: dict[str, Any], models: Path = MODELS_DIR) -> GuideWeights | None:
    """The guide in `models` of the board of `options` (its rules, the size among them;
    read again when its file changes), or None where there is none."""
    path = guide_file(options["size"], models)
    if not path.is_file():
        return None
    return _shipped(path, options["size"], path.stat().st_mtime_ns)


def guided_boards(models: Path = MODELS_DIR) -> list[dict[str, Any]]:
    """The options of each board whose guide is in `models`."""
    return [{"size": size} for size in guide_files(models)]
