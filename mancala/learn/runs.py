"""A training run's folder, `runs/<name>/` (git-ignored), that a stopped run resumes from.

    games.jsonl        every recorded game, appended whole
    candidates/        each network's latest refit weights (never the shipped ones)
    curve.json, .png   the learning curve
    gates.jsonl        every promotion decision, with the games behind it
    tensorboard/       the curve's and the gates' numbers for TensorBoard (learn/scalars.py)
    log.txt            the lines the run printed
    settings.json      the run's manifest: its job and board
    teacher/           a pretraining's teacher games (self-play's, of the game's own
                       alpha-beta), each kept as it ends, with their settings
                       (`progress`), until its first network is made

A new run refuses a folder that already holds a run (say `--resume` to continue it);
`--resume` without a name continues the most recent run, as the job it was begun as and
on its board. Every folder of work that can stop and go on has one manifest,
settings.json, of what it is (`progress`): a run's (its job and board), a run's
pretraining's, a fit's labels and rounds; run again with other settings, it says so
rather than mix their work.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mancala.core.atomic import atomic_path
from mancala.core.paths import RUNS_DIR
from mancala.core.stopping import signals_held


class Run:
    """The folder of one run and the files in it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.games = folder / "games.jsonl"
        self.candidates = folder / "candidates"
        self.curve = folder / "curve.json"
        self.gates = folder / "gates.jsonl"
        self.log_file = folder / "log.txt"
        self.teacher = folder / "teacher"

    @property
    def name(self) -> str:
        return self.folder.name

    @classmethod
    def open(
        cls,
        name: str | None,
        resume: bool,
        root: Path = RUNS_DIR,
        job: dict[str, str] | None = None,
    ) -> Run:
        """A new run `name` (the time by default), or with `resume` the stopped run
        `name` (the most recent when None); ValueError saying what to do otherwise. A
        `job` ({"job": its verb, "game": its board}) is the run's manifest (`progress`):
        a run resumes as the job it was begun as, on its board."""
        if resume:
            folder = root / name if name else _latest(root)
            if folder is None or not (folder / "games.jsonl").exists():
                where = f"run {name!r}" if name else "any run"
                raise ValueError(f"--resume: found no {where} in {root}; start one without it")
        else:
            name = name or datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            folder = root / name
            if folder.exists() and any(folder.iterdir()):
                raise ValueError(
                    f"run {name!r} already exists in {root}; add --resume to continue it, "
                    "or name another run"
                )
        folder.mkdir(parents=True, exist_ok=True)
        if job is not None:
            try:
                progress(folder, job)
            except ValueError:
                saved = json.loads((folder / "settings.json").read_text())
                raise ValueError(
                    f"run {folder.name!r} is {_job_text(saved)}, not {_job_text(job)}: "
                    "resume it with the options it was begun with, or name another run"
                ) from None
        run = cls(folder)
        run.games.touch()
        return run

    def candidate(self, network: str) -> Path:
        """Where the run keeps `network`'s refit weights."""
        return self.candidates / f"{network}.keras"

    def generation(self, network: str, number: int) -> Path:
        """Where the run keeps `network`'s promoted generation `number` (0: its first)."""
        return self.folder / "generations" / f"{network}-g{number}.keras"

    def generations(self, network: str) -> list[Path]:
        """`network`'s promoted generations the run kept, in order."""
        found = (self.folder / "generations").glob(f"{network}-g*.keras")
        return sorted(found, key=lambda p: int(p.stem.rpartition("-g")[2]))

    def log(self, line: str) -> None:
        """Print `line` and append it to the run's log."""
        print(line, flush=True)
        with signals_held(), self.log_file.open("a", encoding="utf-8") as out:
            out.write(line + "\n")

    def record_gate(self, network: str, decision: dict[str, Any]) -> None:
        """Append one promotion decision to gates.jsonl (one whole line)."""
        from mancala.learn.promotion import record_to

        record_to(self.gates)(network, decision)

    def tries(self, network: str) -> int:
        """Which gate this is for `network` since its last promotion in the run (1 for the
        first): the gate asks more of a network the more often it has been tried."""
        from mancala.arena.records import GameLog

        tried = 0
        for decision in GameLog([self.gates], validate=False) if self.gates.is_file() else []:
            if decision.get("network") == network:
                tried = 0 if decision.get("promoted") else tried + 1
        return tried + 1


def progress(folder: Path, settings: dict[str, Any], begun: bool = False) -> Path:
    """`folder`, where a job keeps what it has done (each in a file of its own) with the
    settings it was run with (settings.json), made if new; ValueError when it holds the
    work of other settings, or of none though the job was `begun` (its output is there).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:
    ...     folder = progress(progress(Path(root) / "labels", {"depth": 3}), {"depth": 3})
    ...     progress(folder, {"depth": 4})
    Traceback (most recent call last):
    ValueError: ... holds the work of other settings: {'depth': 3}
    """
    manifest = folder / "settings.json"
    saved = json.loads(manifest.read_text()) if manifest.is_file() else None
    if (saved is not None or begun) and saved != settings:
        raise ValueError(f"{folder} holds the work of other settings: {saved}")
    if saved is None:
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(manifest) as temporary:
            temporary.write_text(json.dumps(settings, indent=1) + "\n")
    return folder


def _job_text(job: dict[str, str]) -> str:
    return f"a {job.get('job')} run of {job.get('game')}"


def _latest(root: Path) -> Path | None:
    runs = [p for p in root.glob("*/games.jsonl")] if root.is_dir() else []
    return max(runs, key=lambda p: p.stat().st_mtime).parent if runs else None
