"""Build the solver's endgame database into a cache folder (or find it there already).

    python -m mancala.games.sowing.solver --houses 6 --cache-dir /app/cache    # minutes
    python -m mancala.games.sowing.solver --houses 3 --max-seeds 6 --cache-dir /tmp/db

The api image's `database` stage (deploy/Dockerfile.api) runs the first line, from a copy
of the few files it needs; tests/commands/test_docker_stages.py runs that stage's command
from the same files, on a small board; `mancala solve database` is the same command.
Argparse keeps an option's last value, so options added after the image's ones replace
them. --max-seeds defaults to `default_max_seeds`
(20 for 6 houses), --cache-dir to $MANCALA_CACHE_DIR or <repo>/cache.
"""

from __future__ import annotations

import argparse
import sys

from mancala.games.sowing.solver.database import (
    cache_path,
    database,
    default_cache_dir,
    default_max_seeds,
)


def main(argv: list[str] | None = None, prog: str = "python -m mancala.games.sowing.solver") -> int:
    """`mancala solve database` runs this too, under its own name."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--houses", type=int, default=6, help="houses a side (default 6)")
    parser.add_argument("--max-seeds", type=int, help="seeds in the houses, at most")
    parser.add_argument("--empty-capture", action="store_true", help="the empty-capture rule")
    parser.add_argument("--cache-dir", help="the folder of the database file")
    parser.add_argument("--workers", type=int, help="threads that build it (every core)")
    args = parser.parse_args(argv)
    if args.houses < 1 or (args.max_seeds is not None and args.max_seeds < 0):
        parser.error("--houses must be at least 1 and --max-seeds at least 0")
    if args.workers is not None and args.workers < 1:
        parser.error("--workers must be at least 1")
    max_seeds = default_max_seeds(args.houses) if args.max_seeds is None else args.max_seeds
    cache_dir = args.cache_dir or default_cache_dir()
    values, seconds = database(
        args.houses, max_seeds, args.empty_capture, cache_dir, workers=args.workers
    )
    path = cache_path(cache_dir, args.houses, max_seeds, args.empty_capture)
    how = f"built in {seconds:.0f} s" if seconds else "found in the cache"
    print(f"endgame database {path}: {len(values):,} boards, {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
