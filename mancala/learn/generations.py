"""A self-play run's learning curve by generation.

Every network a run promotes is kept as a generation (`runs/NAME/generations/`,
`Run.generation`). Each measured generation plays, as `az` with a fixed number of
simulations and no help from the solver (no endgame database, no proofs: the network and
its search alone), game pairs from the game's shipped opening set (`mancala/data/
openings/GAME-a.json`) against the game's fixed anchors (the registry's `anchors`) and
against generation 0. The figures (the one head-to-head runner's: score, standard error,
pentanomial counts, margin) are kept in `runs/NAME/generations.json`, written after each
generation so that a stopped measure goes on where it stopped, and drawn in
`generations.png`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mancala.ai.az import AZ
from mancala.ai.registry import make_player
from mancala.arena.opening_sets import load_set, set_starts
from mancala.arena.pairs import Pairs, play_pairs
from mancala.arena.plots import save_figure, subplots
from mancala.core.atomic import write_json
from mancala.core.report import Table
from mancala.core.stopping import signals_held
from mancala.games import game as game_line
from mancala.learn.runs import Run
from mancala.nn_lib.policy_value import NAME, PolicyValue

FIRST = "generation 0"
OPENING_SET = "a"
CHUNK = 20  # openings between two progress lines


def generation_player(path: Path, game: str, simulations: int, seed: int) -> AZ:
    """`az` of `simulations` with the weights at `path`, without the solver's help."""
    net = PolicyValue(game, path).load()
    return AZ(seed, simulations=simulations, net=net, endgame=False, prove=False)


def chosen(count: int, step: int) -> list[int]:
    """The generations measured of `count`: every `step`-th and the last.

    >>> chosen(8, 3), chosen(1, 1), chosen(4, 1)
    ([0, 3, 6, 7], [0], [0, 1, 2, 3])
    """
    return sorted(set(range(0, count, step)) | {count - 1})


def measure(
    run: Run,
    game: str,
    pairs: int,
    simulations: int,
    step: int = 1,
    seed: int = 0,
    anchors: tuple[str, ...] | None = None,
    progress: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Measure the run's generations of `game` (see the module's text) on the first
    `pairs` openings of the shipped set against `anchors` (default: the game's), each
    pairing not measured before with the same settings; the points, one a generation."""
    files = run.generations(f"{NAME}-{game}")
    if not files:
        raise ValueError(f"the run {run.name} has no promoted generations of {game}")
    opening_set = load_set(game, OPENING_SET)
    starts, moves = set_starts(opening_set)
    starts, moves = starts[:pairs], moves[:pairs]
    path = run.folder / "generations.json"
    anchors = anchors or game_line(game).anchors
    settings = {  # a pairing measured with other settings is measured again
        "simulations": simulations,
        "set": f"{game}-{OPENING_SET}",
        "seed": seed,
    }
    points = {p["generation"]: p for p in _read(path, settings)}
    first = generation_player(files[0], game, simulations, seed)
    for number in chosen(len(files), step):
        point = points.setdefault(number, {"generation": number, "against": {}})
        wanted = list(anchors) + ([FIRST] if number > 0 else [])
        missing = [name for name in wanted if name not in point["against"]]
        if not missing:
            continue
        player = generation_player(files[number], game, simulations, seed)
        for name in missing:
            opponent = first if name == FIRST else make_player(name, seed=seed)
            pairs = Pairs([], [], [])
            for at in range(0, len(starts), CHUNK):  # a line a chunk: a pairing takes minutes
                part = play_pairs(player, opponent, starts[at : at + CHUNK], moves[at : at + CHUNK])
                pairs.openings += part.openings
                pairs.points += part.points
                pairs.margins += part.margins
                progress(f"generation {number} against {name}: {_cell(pairs.to_dict())}")
            point["against"][name] = pairs.to_dict()
            kept = sorted(points.values(), key=lambda p: p["generation"])
            with signals_held():
                write_json(path, {**settings, "points": kept})
                plot(kept, path.with_suffix(".png"), f"{game}: az:{simulations} by generation")
    return sorted(points.values(), key=lambda p: p["generation"])


def table(points: list[dict[str, Any]], title: str = "") -> Table:
    """The points as a table: a row a generation, a column an opponent; a cell is the
    score % ± its standard error (pairs, mean final margin)."""
    opponents = _opponents(points)
    out = Table(["generation", *(f"against {o}" for o in opponents)], title=title)
    for point in points:
        cells = []
        for opponent in opponents:
            figures = point["against"].get(opponent)
            cells.append("" if figures is None else _cell(figures))
        out.add(point["generation"], *cells)
    return out


def _opponents(points: list[dict[str, Any]]) -> list[str]:
    """Every opponent of the points: the anchors by name, then generation 0."""
    return sorted({o for p in points for o in p["against"]}, key=lambda o: (o == FIRST, o))


def _cell(figures: dict[str, Any]) -> str:
    """score % ± its standard error (pairs, mean final margin)."""
    margin = "" if figures["margin"] is None else f", {figures['margin']:+.1f}"
    score, error = 100 * figures["score"], 100 * figures["standard_error"]
    return f"{score:.1f} ± {error:.1f} ({figures['pairs']}{margin})"


def _read(path: Path, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """The points measured before with the same settings (none when they differ)."""
    if not path.is_file():
        return []
    kept = json.loads(path.read_text())
    same = all(kept.get(key) == value for key, value in settings.items())
    return kept.get("points", []) if same else []


def plot(points: list[dict[str, Any]], path: Path, title: str) -> None:
    """Score % against each opponent by generation, two standard errors as bars."""
    figure, axes = subplots(figsize=(7, 4))
    for opponent in _opponents(points):
        mine = [p for p in points if opponent in p["against"]]
        axes.errorbar(
            [p["generation"] for p in mine],
            [100 * p["against"][opponent]["score"] for p in mine],
            yerr=[200 * p["against"][opponent]["standard_error"] for p in mine],
            marker="o",
            capsize=3,
            label=f"against {opponent}",
        )
    axes.axhline(50, color="grey", linewidth=0.8)
    axes.set_xlabel("promoted generation")
    axes.set_ylabel("score % (game pairs)")
    axes.set_ylim(0, 100)
    axes.set_title(title)
    axes.legend(fontsize=8)
    save_figure(figure, path)
