"""Many independent games, N ways: `Workers(n).play(seats, jobs)` yields each game as it ends.

A job is one game: two seats (players by registry name, or zoo networks with their weights
as plain arrays, `Seat.of(player)`), the variant's opening position, the opening moves
already played, and the game's seed; or a player against itself that records the game its
own way (`playing`: self-play). Every player is made for its game and seeded from the
game's seed alone, so a game's moves depend on nothing played before it nor on where it is
played: one worker or many give the same records. With a teacher, each game is annotated
where it was played.

With one worker and no address the games are played here, one after another, and Ray is
never imported. Otherwise Ray actors play them, on a local Ray started for the purpose or on
the cluster at `address`: the seats (network weights included) go once through Ray's object
store, the jobs go out in chunks, and the games come back as they end (a streaming
generator; quick games a few together, every `SEND_EVERY` seconds). A worker that dies
costs only the games it had not sent back: they are played again on a new worker. The
caller, in the parent process, is the one writer of records.
"""

from __future__ import annotations

import hashlib
import os
import random
import socket
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from mancala.ai.base import Player
from mancala.arena.records import opened
from mancala.core.paths import ROOT
from mancala.core.stopping import signals_held, stop_if_asked
from mancala.game_state import GameState
from mancala.games import DEFAULT_GAME
from mancala.games.replay import replayed

WORKER_ENV = {"OPENBLAS_NUM_THREADS": "1", "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": str(ROOT)}
PASSED_ON = ("MANCALA_CACHE_DIR", "NUMBA_CACHE_DIR", "KERAS_HOME")  # when set here
MAX_CHUNK = 32  # games a worker is sent at once (fewer towards the end of a call)
SEND_EVERY = 0.05  # seconds: a worker sends its quick games on together, not one by one
KEPT_NETWORKS = 32  # weights a worker keeps (a learning run sends new ones every batch)
MAX_TRIES = 3  # a game whose worker died this many times is an error, not bad luck


class Playing(Protocol):
    """How a worker plays a game that is no match of the seats' players (one player
    against itself, recorded its own way: self-play's visits and policies). `make()`
    gives what plays them, kept by the worker (so hashable): its `play(start, seed)` is
    the game's record. `mancala.learn.az.SelfPlayGames` is one."""

    def make(self) -> Any: ...


class Teaching(Protocol):
    """How a worker makes the teacher that annotates each game where it is played (one
    teacher a teaching, kept: so hashable); `mancala.learn.teacher.Teaching` is one. The
    teacher has `annotate(record)` and counts positions valued `exact` and `searched`."""

    def make(self) -> Any: ...


@dataclass(frozen=True, eq=False)
class Seat:
    """Who plays a seat: a registry name (`spec`), or a zoo network's name with its
    weights as plain data (`layers`, `weights_id` naming them); `explore` is the rate of
    uniformly random moves (`mancala.ai.explorer.Explorer`)."""

    spec: str
    explore: float = 0.0
    layers: list | None = field(default=None, repr=False)
    weights_id: str = ""
    game: str = DEFAULT_GAME  # the game a network's weights are for
    options: dict[str, Any] | None = None  # ... and its board (the default board: None)

    @classmethod
    def of(cls, player: Player, explore: float = 0.0, start: GameState | None = None) -> Seat:
        """The seat of a player made here: a network travels as its weights (those for
        `start`'s board where it has weights for several boards), any other player as
        its registry name."""
        net_of = getattr(player, "net_of", None)
        net = net_of(start) if net_of and start else getattr(player, "net", None)
        if net is None or net.forward is None:
            return cls(player.name, explore)
        layers = net.forward.layers
        digest = hashlib.blake2b(digest_size=16)
        for _, _, weights in layers:
            for array in weights:
                digest.update(array.tobytes())
        return cls(net.name, explore, layers, digest.hexdigest(), net.variant, net.options)


@dataclass(frozen=True)
class GameJob:
    """One game: seats[i] of the call moves for seat i; `start` is the variant's opening
    position, `opening` the moves already played from it."""

    seats: tuple[int, int]
    start: GameState
    opening: tuple[int, ...] = ()
    seed: int = 0
    max_plies: int | None = None  # a game not over by then stops (`mancala.arena.match.play_games`)
    playing: Playing | None = None  # how the game is played, where not by the seats (none)


@dataclass(frozen=True)
class Finished:
    """A game that ended: its job's place in the call, its record (annotated when a teacher
    was given), each seat's thinking time and moves, the positions the teacher valued
    exactly and by search, and the worker's time on it all."""

    index: int
    record: dict[str, Any]
    seconds: tuple[float, float]
    moves: tuple[int, int]
    valued: tuple[int, int] = (0, 0)
    busy: float = 0.0  # the worker's seconds on the game: its moves and its annotation


def seat_seeds(seed: int) -> list[tuple[int, int]]:
    """(player's seed, exploration's seed) of each seat of the game `seed`."""
    rng = random.Random(seed)
    return [(rng.getrandbits(31), rng.getrandbits(31)) for _ in range(2)]


class _Clocked(Player):
    """A player seen through a stopwatch."""

    def __init__(self, player: Player) -> None:
        self.player, self.name = player, player.name
        self.seconds, self.moves = 0.0, 0

    def choose_moves(self, states: Sequence[GameState]) -> list[int]:
        began = time.perf_counter()
        moves = self.player.choose_moves(states)
        self.seconds += time.perf_counter() - began
        self.moves += len(states)
        return moves


class GameWorker:
    """Plays jobs one at a time (here, or inside a Ray actor); keeps what is costly to
    make again: the networks of the seats it has seen and its teachers."""

    def __init__(self) -> None:
        self.networks: dict[str, Any] = {}
        self.teachers: dict[Teaching, Any] = {}
        self.playing: dict[Playing, Any] = {}
        self.games = 0  # played so far

    def play(
        self, seats: Sequence[Seat], jobs: Sequence[tuple[int, GameJob]], teaching: Teaching | None
    ) -> Iterator[list[Finished]]:
        """Each (index, job) played in turn; the finished games are sent on together once
        `SEND_EVERY` seconds have passed since the last sending (a slow game alone), and
        at the end."""
        done: list[Finished] = []
        sent = time.perf_counter()
        for index, job in jobs:
            done.append(self.play_one(seats, index, job, teaching))
            if time.perf_counter() - sent >= SEND_EVERY:
                yield done
                done, sent = [], time.perf_counter()
        if done:
            yield done

    def cpu_seconds(self) -> float:
        """The CPU time of this worker's process so far."""
        return time.process_time()

    def played(self) -> int:
        """The games this worker has played so far."""
        return self.games

    def play_one(
        self, seats: Sequence[Seat], index: int, job: GameJob, teaching: Teaching | None
    ) -> Finished:
        from mancala.arena.match import play_games

        began = time.perf_counter()
        if job.playing is not None:
            return self._play_own(index, job, began)
        players = [
            _Clocked(self._player(seats[s], *seeds))
            for s, seeds in zip(job.seats, seat_seeds(job.seed))
        ]
        start = replayed(job.start, job.opening)
        record = play_games(
            players, [start], openings=[list(job.opening)], seed=job.seed, max_plies=job.max_plies
        )[0]
        valued = self._annotate(record, teaching) if teaching else (0, 0)
        self.games += 1
        seconds = (players[0].seconds, players[1].seconds)
        moves = (players[0].moves, players[1].moves)
        return Finished(index, record, seconds, moves, valued, time.perf_counter() - began)

    def _play_own(self, index: int, job: GameJob, begun: float) -> Finished:
        """The game of `job` as its `playing` plays it (made once a worker; the newest
        KEPT_NETWORKS kept), from the position after the job's opening, recorded from the
        start (`opened`)."""
        made = self.playing.get(job.playing)
        if made is None:
            made = self.playing[job.playing] = job.playing.make()
            if len(self.playing) > KEPT_NETWORKS:
                del self.playing[next(iter(self.playing))]
        record = made.play(replayed(job.start, job.opening), job.seed)
        moves = len(record["moves"])
        record = opened(record, job.opening) if job.opening else record
        self.games += 1
        busy = time.perf_counter() - begun
        return Finished(index, record, (busy, 0.0), (moves, 0), busy=busy)

    def _player(self, seat: Seat, seed: int, explore_seed: int) -> Player:
        from mancala.ai.explorer import Explorer

        if seat.layers is not None:
            from mancala.ai.network import NetworkPlayer

            player: Player = NetworkPlayer(seed=seed, net=self._network(seat))
        else:
            from mancala.ai.registry import make_player

            player = make_player(seat.spec, seed=seed)
        return Explorer(player, seat.explore, explore_seed) if seat.explore else player

    def _network(self, seat: Seat) -> Any:
        net = self.networks.get(seat.weights_id)
        if net is None:
            from mancala.nn_lib.numpy_forward import NumpyForward
            from mancala.nn_lib.zoo import network

            net = network(seat.spec, None, seat.game, seat.options)
            net.forward = NumpyForward.from_layers(seat.layers)  # type: ignore[arg-type]
            self.networks[seat.weights_id] = net
            if len(self.networks) > KEPT_NETWORKS:  # the oldest weights go first
                del self.networks[next(iter(self.networks))]
        return net

    def _annotate(self, record: dict[str, Any], teaching: Teaching) -> tuple[int, int]:
        teacher = self.teachers.get(teaching)
        if teacher is None:
            teacher = self.teachers[teaching] = teaching.make()
        exact, searched = teacher.exact, teacher.searched
        teacher.annotate(record)
        return teacher.exact - exact, teacher.searched - searched


@dataclass
class _RayPlay:
    """One call's games on Ray: the jobs not handed out yet, the times each was cut short,
    the workers free for a chunk (an actor once for each chunk it may hold), and the
    chunks being played (stream -> (actor's place, the actor, its jobs not yet back))."""

    queue: deque[int]
    tries: list[int]
    idle: list[int]
    running: dict[Any, tuple[int, Any, list[int]]]
    seats: Any = None  # the seats in Ray's object store


class Workers:
    """`count` ways to play games: here (1, no address: Ray is not imported) or Ray actors,
    one CPU each, on a local Ray or the cluster at `address` ("auto": one a CPU). Use it
    as a context manager, or `close()` it: that stops the workers (and a local Ray)."""

    def __init__(self, count: int | str = 1, address: str | None = None) -> None:
        self.address = address
        self.local = GameWorker() if count == 1 and address is None else None
        self.count = 1
        self.actors: list[Any] = []
        self.replayed = 0  # games played again after their worker died
        if self.local is None:
            self._start_ray(count)

    def _start_ray(self, count: int | str) -> None:
        import logging

        import ray

        self.ray = ray
        env = dict(WORKER_ENV, **{k: os.environ[k] for k in PASSED_ON if k in os.environ})
        local_cpus = os.cpu_count() or 1
        if self.address:
            check_answers(self.address)
        try:
            with signals_held():  # then our handlers again: Ray's would exit on SIGTERM at once
                ray.init(
                    address=self.address,
                    num_cpus=None if self.address else (local_cpus if count == "auto" else count),
                    include_dashboard=False,
                    logging_level=logging.WARNING,
                    log_to_driver=False,
                    runtime_env={"env_vars": env},
                )
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.count = cpus if count == "auto" else int(count)
            if self.count > cpus:
                raise ValueError(f"{self.count} workers need as many CPUs; the cluster has {cpus}")
            self.actor_class = ray.remote(num_cpus=1)(GameWorker)
            self.actors = [self._new_actor() for _ in range(self.count)]
        except ConnectionError as error:  # e.g. the cluster wants a token this one lacks
            ray.shutdown()
            raise ValueError(
                f"cannot join the Ray cluster at {self.address}: {error}; a cluster started "
                "with token authentication needs RAY_AUTH_MODE=token here and its token in "
                "~/.ray/auth_token (docs/ray.md)"
            ) from None
        except BaseException:
            ray.shutdown()
            raise

    def _new_actor(self) -> Any:
        return self.actor_class.options(scheduling_strategy="SPREAD").remote()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the workers; disconnect from Ray (a Ray this started stops with them)."""
        if self.actors:
            self.actors = []
            self.ray.shutdown()

    def cpu_seconds(self) -> float:
        """The CPU time used so far by this process and the workers."""
        if self.local is not None:
            return time.process_time()
        spent = self.ray.get([actor.cpu_seconds.remote() for actor in self.actors])
        return time.process_time() + sum(spent)

    def play(
        self, seats: Sequence[Seat], jobs: Sequence[GameJob], teaching: Teaching | None = None
    ) -> Iterator[Finished]:
        """Play `jobs` (annotated by a teacher of `teaching` when given); each game once,
        yielded as it ends (in job order with one local worker)."""
        for batch in self.play_batches(seats, jobs, teaching):
            yield from batch

    def play_batches(
        self,
        seats: Sequence[Seat],
        jobs: Sequence[GameJob],
        teaching: Teaching | None = None,
        ahead: bool = False,
    ) -> Iterator[list[Finished]]:
        """`play`, the games that have come back together in one list (so that a writer
        can append them at once). With `ahead`, Ray workers are handed every job before
        this returns and play them while the caller does other work (a learning run's
        refits), the games waiting in Ray's store until they are read; otherwise a
        worker gets its next jobs as it comes free, while they are read. Played here,
        a game is played when it is read."""
        if self.local is not None:
            return (
                [self.local.play_one(seats, index, job, teaching)] for index, job in enumerate(jobs)
            )
        ray = self.ray
        play = _RayPlay(deque(range(len(jobs))), [0] * len(jobs), [], {})
        slots = len(jobs) if ahead else 1  # chunks an actor may hold at once
        play.idle = [actor for _ in range(slots) for actor in range(self.count)]
        play.seats = ray.put(list(seats))
        if ahead:
            self._hand_out(play, jobs, teaching)
        return self._play_on_ray(play, jobs, teaching)

    def _hand_out(self, play: _RayPlay, jobs: Sequence[GameJob], teaching: Teaching | None) -> None:
        """Give the waiting jobs to idle workers, a chunk each."""
        queue = play.queue
        while play.idle and queue:
            actor = play.idle.pop()
            size = max(1, min(MAX_CHUNK, len(queue) // (4 * self.count)))
            chunk = [queue.popleft() for _ in range(min(size, len(queue)))]
            pairs = [(i, jobs[i]) for i in chunk]
            stream = self.actors[actor].play.remote(play.seats, pairs, teaching)
            play.running[stream] = (actor, self.actors[actor], chunk)

    def _play_on_ray(
        self, play: _RayPlay, jobs: Sequence[GameJob], teaching: Teaching | None
    ) -> Iterator[list[Finished]]:
        ray = self.ray
        queue, tries, idle, running = play.queue, play.tries, play.idle, play.running
        try:
            while queue or running:
                stop_if_asked()
                self._hand_out(play, jobs, teaching)
                ray.wait(list(running), num_returns=1)
                ready, _ = ray.wait(list(running), num_returns=len(running), timeout=0)
                batch: list[Finished] = []
                for stream in ready:
                    actor, handle, unfinished = running[stream]
                    try:
                        games = ray.get(next(stream))
                    except StopIteration:
                        del running[stream]
                        idle.append(actor)
                        continue
                    except ray.exceptions.RayActorError as death:
                        del running[stream]
                        self._play_again(unfinished, queue, tries, death)
                        if self.actors[actor] is handle:  # its other chunks die with it
                            self.actors[actor] = self._new_actor()
                        idle.append(actor)
                        continue
                    for game in games:
                        unfinished.remove(game.index)
                    batch.extend(games)
                if batch:
                    yield batch
        except KeyboardInterrupt:  # Ctrl+C or SIGTERM: the busy workers go, none is started
            for actor in {actor for actor, *_ in running.values()}:
                ray.kill(self.actors[actor])
            running.clear()
            raise
        finally:
            for actor in {actor for actor, *_ in running.values()}:  # stopped early: busy
                ray.kill(self.actors[actor])  # workers start afresh
                self.actors[actor] = self._new_actor()

    def _play_again(
        self, unfinished: list[int], queue: deque[int], tries: list[int], death: Exception
    ) -> None:
        """Put the games a dead worker had not sent back first in the queue; RuntimeError
        when a game has now been cut short `MAX_TRIES` times."""
        for i in unfinished:
            tries[i] += 1
            if tries[i] >= MAX_TRIES:
                raise RuntimeError(
                    f"game {i} was cut short by its worker's death {MAX_TRIES} times"
                ) from death
        queue.extendleft(reversed(unfinished))
        self.replayed += len(unfinished)


def check_answers(address: str, seconds: float = 5.0) -> None:
    """ValueError unless something answers at `address` (HOST:PORT; other forms, such as
    "auto", are left to Ray), so that a wrong address fails at once, not after minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "/" in address:
        return
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as error:
        raise ValueError(
            f"nothing answers at {address} ({error}); start the cluster's head there with "
            "`ray start --head` and give the address it prints"
        ) from None
