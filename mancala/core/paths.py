"""Where the lab keeps its files, named once: the project root and the folders under it,
so that a module can move without its paths going wrong.

>>> (MODELS_DIR.parent.name, MODELS_DIR.name), TRAINING_DIR.relative_to(ROOT).as_posix()
(('mancala', 'models'), 'training')
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project: mancala/, webapi/, training/, ...
PACKAGE_DIR = ROOT / "mancala"
MODELS_DIR = PACKAGE_DIR / "models"  # the shipped weights, their metadata and solver books
DATA_DIR = PACKAGE_DIR / "data"  # shipped data sets (the solved whole-game set)
TRAINING_DIR = ROOT / "training"  # recorded games (JSONL)
RUNS_DIR = ROOT / "runs"  # the main job's runs
FIT_DIR = RUNS_DIR / "fit"  # where a fit saves, away from the shipped weights
CACHE_DIR = ROOT / "cache"  # endgame databases, examples read from records (git-ignored)


def cache_dir() -> Path:
    """$MANCALA_CACHE_DIR if set, else <repo>/cache."""
    return Path(os.environ.get("MANCALA_CACHE_DIR") or CACHE_DIR)


def recorded(path: str | os.PathLike) -> str:
    """`path` as a record keeps it: relative to the project where it lies inside it, so
    that the record reads the same on every machine; else as it is.

    >>> recorded(ROOT / "mancala" / "models" / "replaced"), recorded("/tmp/x")
    ('mancala/models/replaced', '/tmp/x')
    """
    absolute = Path(path).resolve()
    return str(absolute.relative_to(ROOT)) if absolute.is_relative_to(ROOT) else str(path)
