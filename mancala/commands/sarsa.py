"""Tabular SARSA on Tak, as the seed learnt it: the average reward by episode over runs,
and a table for the `sarsa` player and `mcts:rollout=sarsa`.

    mancala sarsa                                  # the seed's setting: 3x3, 10 runs of 1,000
    mancala sarsa --size 3 --runs 10 --episodes 1000 --plot runs/sarsa-3x3.png
    mancala sarsa --size 4 --episodes 2000000 --alpha 0.1 --loss -1 --out runs/sarsa-4x4.npz

Each run learns a fresh table (`mancala.games.tak.sarsa`: the agent's seat alternates,
its opponent plays random or weighted moves, a win rewards 1, a draw 0, a loss `--loss`)
with its own seed. The table prints the agent's average reward in each tenth of the
episodes, the mean of the runs and their spread, and `--plot` draws it by episode.
With `--out` the first run's table is saved there (atomically, every `--save-every`
episodes and at the end); if the file exists, that run goes on from it with its own
settings (`--episodes` more), so a long run resumes where Ctrl+C or SIGTERM (exit 130
or 143) left it. The
lab's `sarsa` player reads mancala/models/tak/sarsa-NxN.npz: a table becomes the
shipped one only when copied there.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
from tqdm import tqdm

from mancala.core.atomic import write_json
from mancala.core.cli import command_parser, float_in, int_in
from mancala.core.report import Table as Report
from mancala.core.stopping import run_command
from mancala.games.tak.sarsa import MAX_BITS, OPPONENTS, Settings, Table

PROG = "mancala sarsa"
MAX_EPISODES = 100_000_000
MAX_RUNS = 1000
WINDOWS = 10  # the table's rows: tenths of the episodes


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = command_parser(PROG, __doc__)
    defaults = Settings()
    parser.add_argument("--size", type=int_in(3, 8), default=defaults.size, help="board size")
    parser.add_argument("--episodes", type=int_in(1, MAX_EPISODES), default=1000)
    parser.add_argument("--runs", type=int_in(1, MAX_RUNS), default=10, help="fresh tables")
    parser.add_argument("--epsilon", type=float_in(0, 1), default=defaults.epsilon)
    parser.add_argument("--alpha", type=float_in(0, 1), default=defaults.alpha)
    parser.add_argument("--gamma", type=float_in(0, 1), default=defaults.gamma)
    parser.add_argument(
        "--loss", type=float_in(-1, 0), default=defaults.loss, help="a lost game's reward"
    )
    parser.add_argument("--opponent", choices=sorted(OPPONENTS), default=defaults.opponent)
    parser.add_argument(
        "--bits", type=int_in(8, MAX_BITS), default=defaults.bits, help="2**BITS table values"
    )
    parser.add_argument("--seed", type=int_in(0), default=0)
    parser.add_argument("--out", type=Path, help="the first run's table (.npz): resumed if there")
    parser.add_argument("--save-every", type=int_in(1), default=100_000, help="episodes")
    parser.add_argument("--plot", type=Path, help="PNG of the average reward by episode")
    parser.add_argument("--json", type=Path, help="the curves and settings as JSON")
    return parser.parse_args(argv)


def settings_of(args: argparse.Namespace) -> Settings:
    return Settings(
        args.size, args.epsilon, args.alpha, args.gamma, args.loss, args.opponent, args.bits
    )


def first_table(args: argparse.Namespace, argv: list[str] | None) -> Table:
    """The first run's table: the one at `--out` to go on from, else a fresh one."""
    if args.out is not None and args.out.exists():
        table = Table.load(args.out)
        print(
            f"{PROG}: going on from {args.out} ({len(table.rewards):,} episodes, "
            f"its settings: {asdict(table.settings)})",
            file=sys.stderr,
        )
        return table
    table = Table.new(settings_of(args))
    table.command = shlex.join(["mancala", "sarsa", *(sys.argv[1:] if argv is None else argv)])
    return table


def learn_run(
    table: Table, episodes: int, seed: int, bar: tqdm, out: Path | None, every: int
) -> np.ndarray:
    """`episodes` more episodes of `table`, saved to `out` every `every` episodes."""
    done, rewards = 0, []
    chunk = min(every, 10_000)
    while done < episodes:
        step = min(chunk, episodes - done)
        rewards.append(table.learn(step, seed + done))
        done += step
        bar.update(step)
        if out is not None and (done % every < step or done == episodes):
            table.save(out)
    return np.concatenate(rewards)


def windows(rewards: np.ndarray) -> np.ndarray:
    """The mean of each tenth of `rewards` (fewer when there are fewer episodes)."""
    parts = min(WINDOWS, len(rewards))
    return np.array([part.mean() for part in np.array_split(rewards, parts)])


def report(curves: np.ndarray, settings: Settings) -> Report:
    """The average reward in each tenth of the episodes: mean of the runs, spread."""
    title = (
        f"SARSA on Tak {settings.size}x{settings.size} against {settings.opponent} moves: "
        f"average reward by episode, {len(curves)} run(s) of {curves.shape[1]:,} episodes "
        f"(epsilon {settings.epsilon}, alpha {settings.alpha}, gamma {settings.gamma}, "
        f"win 1, draw 0, loss {settings.loss})"
    )
    out = Report(["episodes", "mean reward", "lowest run", "highest run"], title=title)
    per_run = np.array([windows(c) for c in curves])
    edges = np.linspace(0, curves.shape[1], per_run.shape[1] + 1).astype(int)
    for k in range(per_run.shape[1]):
        column = per_run[:, k]
        out.add(
            f"{edges[k] + 1:,}-{edges[k + 1]:,}",
            f"{column.mean():.3f}",
            f"{column.min():.3f}",
            f"{column.max():.3f}",
        )
    return out


def plot(curves: np.ndarray, settings: Settings, path: Path) -> None:
    """Each run's reward by episode (a moving average) and their mean."""
    from mancala.arena.plots import save_figure, subplots

    width = max(1, curves.shape[1] // 50)
    kernel = np.ones(width) / width
    figure, axes = subplots(figsize=(7, 4))
    x = np.arange(width, curves.shape[1] + 1)
    for curve in curves:
        axes.plot(x, np.convolve(curve, kernel, "valid"), color="0.75", linewidth=0.8)
    axes.plot(x, np.convolve(curves.mean(axis=0), kernel, "valid"), color="C0", label="mean")
    axes.set_xlabel("episode")
    axes.set_ylabel(f"average reward (last {width} episodes)")
    axes.set_title(f"SARSA, Tak {settings.size}x{settings.size}, {len(curves)} run(s)")
    axes.legend()
    save_figure(figure, path)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    kept = f"the first run's table is in {args.out}" if args.out else "nothing was saved"

    def body() -> int:
        first = first_table(args, argv)
        settings = first.settings
        curves = []
        with tqdm(
            total=args.runs * args.episodes, unit="episode", file=sys.stderr, unit_scale=True
        ) as bar:
            for run in range(args.runs):
                table = first if run == 0 else Table.new(settings)
                out = args.out if run == 0 else None
                seed = args.seed + run * MAX_EPISODES
                curves.append(learn_run(table, args.episodes, seed, bar, out, args.save_every))
        curves = np.array(curves)
        print(report(curves, settings).markdown())
        if args.plot:
            plot(curves, settings, args.plot)
        if args.json:
            data = {"settings": asdict(settings), "curves": [windows(c).tolist() for c in curves]}
            write_json(args.json, data)
        return 0

    return run_command(PROG, body, kept)


if __name__ == "__main__":
    raise SystemExit(main())
