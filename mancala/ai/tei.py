"""TEI, the Tak Engine Interface (UCI for Tak), both ways: `TEIEngine` plays an outside
engine (a program on this machine) as a lab player, and `Session` answers the protocol
for a lab player (`mancala/commands/tei.py` serves it on standard input and output).

The protocol, as Tak engines and controllers (racetrack) speak it: `tei` (the engine
names itself and its options, then `teiok`), `isready` / `readyok`, `setoption name
HalfKomi value N`, `teinewgame SIZE`, `position startpos [moves ...]` or `position tps
TPS [moves ...]`, `go movetime MS` or `go wtime MS btime MS [winc MS binc MS]`, then
`info ...` lines and `bestmove PTN`; `stop`, `quit`. Komi is in half points, as the
lab's own `komi` option.
"""

from __future__ import annotations

import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable

from mancala.ai.base import Player
from mancala.games import Capability, capabilities
from mancala.games.tak.state import TakState, from_tps, new_tak

HANDSHAKE_SECONDS = 30.0  # an engine must say teiok (and readyok) within this
SPARE_SECONDS = 5.0  # an engine may answer this long after its move time before it is dropped
DEFAULT_MOVETIME = 100  # ms a move, when the spec names none
MOVE_SHARE = 20  # with a clock, a move takes its time left / MOVE_SHARE, plus half the increment


class ProtocolError(ValueError):
    """The engine broke the protocol, died, or did not answer in time."""


def move_seconds(go: dict[str, int], player: int) -> float:
    """Seconds to think on a `go` (its numbers by name, ms) for `player` (0 white).

    >>> move_seconds({"movetime": 250}, 0)
    0.25
    >>> move_seconds({"wtime": 60000, "btime": 30000, "binc": 1000}, 1)
    2.0
    """
    if "movetime" in go:
        return go["movetime"] / 1000
    left = go.get("wtime" if player == 0 else "btime")
    if left is None:
        raise ValueError("go needs movetime MS, or wtime and btime")
    increment = go.get("winc" if player == 0 else "binc", 0)
    return min(left / 2, left / MOVE_SHARE + increment / 2) / 1000


def parse_go(words: list[str]) -> dict[str, int]:
    """The numbers of a `go` line's words after `go`: {"movetime": 100} and the like."""
    known = {"movetime", "wtime", "btime", "winc", "binc"}
    numbers: dict[str, int] = {}
    for key, value in zip(words[::2], words[1::2], strict=False):
        if key in known:
            if not value.isdigit():
                raise ValueError(f"go {key} needs a whole number of milliseconds, not {value!r}")
            numbers[key] = int(value)
    return numbers


def parse_position(words: list[str], size: int, komi: int) -> TakState:
    """The state of a `position` line's words after `position`; ValueError saying why not."""
    if not words:
        raise ValueError("position needs startpos or tps")
    moves: list[str] = []
    if "moves" in words:
        at = words.index("moves")
        words, moves = words[:at], words[at + 1 :]
    if words == ["startpos"]:
        state = new_tak(size, komi)
    elif words[0] == "tps" and len(words) == 4:
        state = from_tps(" ".join(words[1:]), komi)
    else:
        raise ValueError(f"position {' '.join(words)!r}: give startpos, or tps BOARD PLAYER MOVE")
    for text in moves:
        state = state.play(state.parse_move(text))
    return state


def info_line(player: Player, ms: int) -> str:
    """The `info` line of a search: its time, and what the player recorded of it: depth
    reached, nodes, simulations, and `score cp`, its value of the chosen move in the
    player's own units (an evaluator's; az's mean value, -1..1, times 100).

    >>> class Searched(Player):
    ...     reached, nodes, score = 4, 1234, 17.6
    >>> info_line(Searched(), 95)
    'info time 95 depth 4 nodes 1234 score cp 18'
    """
    words = ["info", f"time {ms}"]
    for key, word in (("reached", "depth"), ("nodes", "nodes"), ("simulations_done", "nodes")):
        if getattr(player, key, 0):
            words.append(f"{word} {getattr(player, key)}")
    if hasattr(player, "score"):
        scale = 100 if hasattr(player, "simulations_done") else 1
        words.append(f"score cp {round(scale * player.score)}")
    return " ".join(words)


class Session:
    """The engine's side of the protocol for the lab player that `make(seconds, state)`
    makes for a move of `seconds` from `state`: `answer(line)` returns the lines to send
    back (a search runs in the calling thread)."""

    def __init__(self, name: str, make: Callable[[float, TakState], Player]) -> None:
        self.name, self.make = name, make
        self.size, self.komi = 5, 0
        self.state: TakState | None = None

    def answer(self, line: str) -> list[str]:
        words = line.split()
        if not words:
            return []
        command, rest = words[0], words[1:]
        try:
            return self._answer(command, rest)
        except ValueError as exc:  # IllegalMove is one: a bad position, move or number
            return [f"info string error: {exc}"]

    def _answer(self, command: str, rest: list[str]) -> list[str]:
        if command == "tei":
            return [
                f"id name Mancala lab {self.name}",
                "id author the Mancala lab",
                "option name HalfKomi type spin default 0 min -128 max 128",
                "teiok",
            ]
        if command == "isready":
            return ["readyok"]
        if command == "setoption":
            return self._option(rest)
        if command == "teinewgame":
            size = int(rest[0]) if rest and rest[0].isdigit() else 0
            new_tak(size, self.komi)  # ValueError unless 3..8
            self.size, self.state = size, None
            return []
        if command == "position":
            self.state = None  # a position that cannot be read leaves none to search
            self.state = parse_position(rest, self.size, self.komi)
            return []
        if command == "go":
            return self._go(parse_go(rest))
        if command == "stop":
            return []  # a search stops at its own time; its bestmove follows
        raise ValueError(f"unknown command {command!r}")

    def _option(self, rest: list[str]) -> list[str]:
        if len(rest) != 4 or rest[0] != "name" or rest[2] != "value":
            raise ValueError("setoption name NAME value VALUE")
        if rest[1] != "HalfKomi":
            return [f"info string no option {rest[1]!r}; options: HalfKomi"]
        komi = int(rest[3]) if rest[3].lstrip("-").isdigit() else None
        if komi is None or abs(komi) > 128:
            raise ValueError(f"HalfKomi is a whole number -128..128, not {rest[3]!r}")
        self.komi = komi
        return []

    def _go(self, go: dict[str, int]) -> list[str]:
        if self.state is None:
            raise ValueError("go needs a position first (the last one given could not be read)")
        if self.state.is_over():
            raise ValueError("the game of this position is over")
        seconds = move_seconds(go, self.state.player)
        began = time.perf_counter()
        player = self.make(seconds, self.state)
        move = player.choose_move(self.state)
        ms = round(1000 * (time.perf_counter() - began))
        return [info_line(player, ms), f"bestmove {self.state.move_name(move)}"]


class TEIEngine(Player):
    """An outside Tak engine, run as a program and spoken to over TEI: `tei:PATH` or
    `tei:PATH,movetime=MS` (default DEFAULT_MOVETIME). PATH comes from the command line
    only (the web API never offers this player). The engine starts at the first move and
    stops with `close()` (or when the player is dropped)."""

    def __init__(self, seed: int | None = None, engine: str = "") -> None:
        super().__init__(seed)
        path, _, options = engine.partition(",")
        if not path:
            raise ValueError("tei needs the engine's path: tei:PATH or tei:PATH,movetime=MS")
        self.path, self.movetime = path, DEFAULT_MOVETIME
        for option in filter(None, options.split(",")):
            key, _, value = option.partition("=")
            if key != "movetime" or not value.isdigit() or not 1 <= int(value) <= 600_000:
                raise ValueError(f"tei option {option!r}: only movetime=MS (1..600000)")
            self.movetime = int(value)
        self.process: subprocess.Popen | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.game: tuple[int, int] | None = None  # the (size, komi) of the engine's game
        self.options: set[str] = set()

    def choose_move(self, state: TakState) -> int:
        if Capability.TEI not in capabilities(state):
            raise ValueError(f"a TEI engine plays Tak, not {state.game}")
        self._start()
        if self.game != (state.size, state.komi):
            if state.komi and "HalfKomi" not in self.options:
                raise ValueError(f"the engine {self.path} has no HalfKomi option for komi")
            if "HalfKomi" in self.options:
                self._send(f"setoption name HalfKomi value {state.komi}")
            self._send(f"teinewgame {state.size}")
            self._send("isready")
            self._expect("readyok", HANDSHAKE_SECONDS)
            self.game = (state.size, state.komi)
        self._send(f"position tps {state.to_tps()}")
        self._send(f"go movetime {self.movetime}")
        reply = self._expect("bestmove", self.movetime / 1000 + SPARE_SECONDS)
        words = reply.split()
        if len(words) < 2:
            raise ProtocolError(f"{self.path}: a bestmove without a move: {reply!r}")
        return state.parse_move(words[1])

    def _start(self) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        try:
            self.process = subprocess.Popen(
                shlex.split(self.path),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise ValueError(f"cannot run the TEI engine {self.path!r}: {exc}") from None
        self.lines = queue.Queue()  # a fresh one: an ended engine's lines stay in the old
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        self._send("tei")
        self.options = set()
        while True:
            line = self._next(HANDSHAKE_SECONDS, "teiok")
            if line.startswith("option name "):
                self.options.add(line.split()[2])
            if line.strip() == "teiok":
                break
        self.game = None

    @staticmethod
    def _read(process: subprocess.Popen, lines: queue.Queue) -> None:
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)  # the engine closed its output: it ended

    def _send(self, line: str) -> None:
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise ProtocolError(f"{self.path} ended (sending {line!r})") from None

    def _next(self, seconds: float, waiting_for: str) -> str:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            self.close()
            raise ProtocolError(f"{self.path}: no {waiting_for} within {seconds:.1f} s") from None
        if line is None:
            raise ProtocolError(f"{self.path} ended before {waiting_for}")
        return line

    def _expect(self, word: str, seconds: float) -> str:
        """The next line that starts with `word` (info lines and the like skipped)."""
        deadline = time.monotonic() + seconds
        while True:
            line = self._next(max(0.0, deadline - time.monotonic()), word)
            if line.split()[:1] == [word]:
                return line

    def close(self) -> None:
        """Say quit and end the engine (killed if it does not end within a second)."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            process.stdin.write("quit\n")
            process.stdin.flush()
            process.wait(timeout=1)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown: nothing left to tell)
            pass
