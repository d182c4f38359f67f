"""The search teacher: the value of every legal move of every position of a recorded game.

`Teacher(depth).annotate(record)` adds to a game record (training/*.jsonl) the key
"values": for every position of the game, the value of each legal move for the mover
(alpha-beta with exact windows, `Minimax(depth).evaluate`; seeds ahead at the horizon,
the end of the game counted exactly), None for an illegal house; "teacher", the search
that made them; "exact", for every position, whether its values are proved exact; and
"label_ms", the milliseconds each position's values took. Readers that do not know these
keys ignore them.
`Teacher(depth, exact_nodes=N)` gives instead the solver's exact values (final store
differences, the same unit) wherever it proves them within N nodes: the endgame and
much of the middle game, with the endgame database of `mancala.games.sowing.solver`
(the players' size, or `max_seeds` seeds when given: a bigger one proves more, faster).

`Teacher(simulations=N)` values instead by `az`, N simulations of its PUCT search guided
by the current shipped network (the sowing games; `weights=FILE`: that file's, which the
main job points at the network its gate promotes, so that the labels follow the best
network of the run): a move's value is its final margin
where the search found it exact, else the search's mean value of it turned back into
seeds (the network's `seeds`); a move the search did not visit gets the completed value
of Gumbel AlphaZero (Danihelka et al., 2022), the network's value of the position mixed
with the mean values of the visited moves, weighted by their priors. As the shipped
network improves, so do its labels.

A Tak record's "values" give, for every position, one number a legal move in the order of
`legal_moves()` (increasing action ids; a dense row of 3,175 would be mostly empty):
the value of the move for the mover by the numba alpha-beta of `mancala.games.tak.search`
to `depth` plies with exact windows, in the units of `mancala.games.tak.evaluate`
(a win WIN_VALUE less the plies to it). `TeacherGames` plays such a teacher against
itself, the games a Tak network's first fit learns from.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from mancala.ai.base import is_sowing
from mancala.ai.gumbel import mixed_value
from mancala.ai.minimax import TT_ENTRY_BYTES
from mancala.arena.records import replay
from mancala.arena.solved_set import seeds_in_houses
from mancala.game_state import GameState
from mancala.games import DEFAULT_GAME, Capability, capabilities, offers


class Teacher:
    """Annotates records with the value of every legal move for the mover: the solver's
    exact values where it proves them within `exact_nodes` nodes (Kalah only; the first
    use builds or loads the endgame database), alpha-beta to `depth` plies (numba)
    elsewhere. `game` names the game of the records it values (Tak: its own numba
    alpha-beta, `mancala.games.tak.search`).

    A game is valued from its last position back to its first (`chain`): each proof
    starts from the value of the move played next, the solver's table carries what the
    later positions proved, and once a proof runs out of its budget the earlier, fuller
    positions of that game go straight to alpha-beta. The values of the last `KNOWN`
    positions valued are kept, since openings repeat. `chain=False` values each position
    on its own, in game order (the way of the first version, kept for comparison).
    """

    KNOWN = 100_000  # positions whose values are kept
    TABLE_BYTES = TT_ENTRY_BYTES << 16  # alpha-beta's table: small enough to stay in cache

    def __init__(
        self,
        depth: int = 8,
        exact_nodes: int = 0,
        chain: bool = True,
        game: str = DEFAULT_GAME,
        simulations: int = 0,
        max_seeds: int = 0,
        up_to: int | None = None,
        weights: str = "",
    ) -> None:
        from mancala.ai.limits import REGISTRY_LIMITS, Limits
        from mancala.ai.minimax import Minimax

        if exact_nodes < 0:
            raise ValueError(f"exact_nodes must be at least 0, not {exact_nodes}")
        exact_nodes = exact_nodes if offers(game, "solver") else 0
        self.depth, self.exact_nodes, self.chain = depth, exact_nodes, chain
        self.simulations, self.max_seeds, self.up_to = simulations, max_seeds, up_to
        searcher = f"az:{simulations}" if simulations else f"minimax:{depth}"
        self.name = searcher + (f"+solver:n={exact_nodes}" if exact_nodes else "")
        self.name += "" if up_to is None else f"+up-to:{up_to}"
        limits = Limits(memory=self.TABLE_BYTES) if chain else REGISTRY_LIMITS
        self.game = game
        self.search: Any = (
            SearchValues(simulations, game, weights)
            if simulations
            else Minimax(depth=depth, limits=limits)
        )  # Minimax plays Tak with its numba alpha-beta
        self.exact = self.searched = 0  # positions valued each way
        self.known: OrderedDict[GameState, tuple[list[int | None], bool]] = OrderedDict()

    def move_values(self, state: GameState) -> list[float | None]:
        """Value of every house for the mover (None where illegal); in Tak of every legal
        move, in the order of `legal_moves()`."""
        return self.valued(state, 0.0)[0]

    def annotate(self, record: dict[str, Any]) -> dict[str, Any]:
        """`record` with "values" (one list a move), "exact", "label_ms" and "teacher"
        added. With `up_to`, a sowing game's positions with more seeds in the houses are
        left unlabelled: their row of values is None."""
        states = replay(record)[:-1]
        values: list = [None] * len(states)
        exact, ms = [False] * len(states), [0.0] * len(states)
        guess: float | None = 0.0  # chained: None once a proof has failed in this game
        for i in reversed(range(len(states))) if self.chain else range(len(states)):
            if not self._labels(states[i]):
                continue
            began = time.perf_counter()
            if self.chain:
                values[i], exact[i] = self._recalled(states[i], guess)
            else:
                values[i], exact[i] = self.valued(states[i], 0.0)
            ms[i] = round(1000 * (time.perf_counter() - began), 1)
            if not self.chain:
                continue
            if not exact[i]:
                guess = None
            elif i:  # the move played before this position reaches its value
                best = max(v for v in values[i] if v is not None)
                guess = best if states[i - 1].player == states[i].player else -best
        record.update(values=values, exact=exact, label_ms=ms, teacher=self.name)
        return record

    def _labels(self, state: GameState) -> bool:
        """Whether `state` is labelled (`up_to`)."""
        return self.up_to is None or not is_sowing(state) or seeds_in_houses(state) <= self.up_to

    def _recalled(self, state: GameState, guess: float | None) -> tuple[list, bool]:
        """(values, exact) of `state`: kept from before, or valued now and kept."""
        known = self.known.get(state)
        if known is None:
            known = self.valued(state, guess)
            self.known[state] = known
            if len(self.known) > self.KNOWN:
                self.known.popitem(last=False)
        else:
            self.exact += known[1]
            self.searched += not known[1]
        return known

    def valued(self, state: GameState, guess: float | None) -> tuple[list, bool]:
        """(values by house, exact): a proof from `guess` first unless it is None."""
        moves = None if guess is None else self._exact_values(state, guess)
        exact = moves is not None
        if exact:
            self.exact += 1
        else:
            moves = self.search.evaluate(state)["moves"]
            self.searched += 1
        if not is_sowing(state):
            return [_number(moves[m]) for m in state.legal_moves()], exact
        return [_number(moves[m]) if m in moves else None for m in range(state.houses)], exact

    def _exact_values(self, state: GameState, guess: float) -> dict[int, int] | None:
        if not self.exact_nodes or Capability.SOLVER not in capabilities(state):
            return None
        from mancala.ai.solver import proved

        found = proved(self.solver(state), state, None, guess, True, self.exact_nodes)
        return None if found is None else found["moves"]

    def solver(self, state: GameState) -> Any:
        """The process's shared solver of `state`'s rules, with the players' endgame
        database or, with `max_seeds`, one of that many seeds (a database is a gigabyte or
        more: one a process, shared by its teachers)."""
        from mancala.ai.solver import shared_solver

        return shared_solver(state, self.max_seeds)


def _number(value: float) -> float:
    """`value` as an int when it is whole (shorter JSON)."""
    return int(value) if value == int(value) else value


class SearchValues:
    """The values in seeds of every legal move of a sowing game's position by `az` with
    `simulations` simulations and the policy-value network of `game` in the file
    `weights` (the shipped one where not given; see the module's text)."""

    def __init__(self, simulations: int, game: str, weights: str = "") -> None:
        from mancala.ai.az import AZ, shipped_network
        from mancala.nn_lib.policy_value import PolicyValue

        if not PolicyValue(game).margins:
            raise ValueError(f"az teaches the games with final margins (sowing), not {game}")
        net = PolicyValue(game, weights).load() if weights else shipped_network(game)
        self.az = AZ(0, simulations=simulations, net=net)

    def evaluate(self, state: GameState) -> dict[str, dict[int, float]]:
        """{"moves": {legal move: value for the mover, final store difference in seeds}}."""
        from mancala.ai.az import NO_MARGIN

        visits, means, value, margins, priors = self.az.search(state)
        net = self.az.net_for(state)
        legal = np.zeros(len(visits), bool)
        legal[state.legal_moves()] = True
        completed = mixed_value(value, priors, visits, means, legal)

        def seeds(q: float) -> float:
            return round(net.seeds(q), 1)

        return {
            "moves": {
                m: int(margins[m])
                if margins[m] != NO_MARGIN
                else seeds(means[m] if visits[m] > 0 else completed)
                for m in state.legal_moves()
            }
        }


@dataclass(frozen=True)
class Teaching:
    """A teacher as plain data, which a worker of `mancala.arena.parallel` makes its own
    teacher from."""

    depth: int
    exact_nodes: int = 0
    game: str = DEFAULT_GAME
    simulations: int = 0  # az's; 0: alpha-beta to `depth`
    max_seeds: int = 0  # the solver's endgame database; 0: the players' size
    up_to: int | None = None  # positions with more seeds in the houses left unlabelled
    weights: str = ""  # the policy-value file guiding az's search; "": the shipped one
    stamp: int = 0  # ... its modification time: a file replaced makes a new teacher

    def make(self) -> Teacher:
        return Teacher(
            self.depth,
            self.exact_nodes,
            game=self.game,
            simulations=self.simulations,
            max_seeds=self.max_seeds,
            up_to=self.up_to,
            weights=self.weights,
        )


TEACHER_OPENING_PLIES = 4  # random plies before a teacher's own game, so that games differ


@dataclass(frozen=True)
class TeacherGames:
    """How a worker plays the games of `game`'s own alpha-beta to `depth` plies against
    itself (`mancala.arena.parallel.Playing`), from a job's opening (TEACHER_OPENING_PLIES
    random plies, whose positions it leaves unlabelled): each move drawn from the soft
    choice of its values of every legal move (`mancala.nn_lib.policy_value.searched_choice`);
    the record annotated with them."""

    game: str
    depth: int

    def make(self) -> SelfTaught:
        return SelfTaught(Teacher(self.depth, game=self.game))


class SelfTaught:
    """Plays the games of `TeacherGames` with its `teacher` (made once a worker)."""

    def __init__(self, teacher: Teacher) -> None:
        self.teacher = teacher

    def play(self, start: GameState, seed: int) -> dict[str, Any]:
        from mancala.arena.match import make_record, ply_limit
        from mancala.nn_lib.policy_value import searched_choice

        rng = np.random.default_rng(seed)
        state, moves, values = start, [], []
        while not state.is_over() and state.ply < ply_limit(start):
            values.append(self.teacher.move_values(state))
            policy = searched_choice([state], values[-1:])[0][0]
            moves.append(int(rng.choice(len(policy), p=policy)))
            state = state.play(moves[-1])
        name = self.teacher.name
        return make_record(start, [name, name], moves, state, seed, values=values, teacher=name)


@dataclass(frozen=True)
class Proofs:
    """How a worker labels a position of the first plies (`mancala.learn.labels.FirstPlies`,
    a `mancala.arena.parallel.Playing`): the exact value of every legal move where the
    solver proves it within `nodes` nodes, from alpha-beta's value to `depth` plies (its
    values where the proof does not fit), then the best move played: a record of that one
    move, labelled."""

    depth: int
    nodes: int
    max_seeds: int = 0

    def make(self) -> Proving:
        return Proving(Teacher(self.depth, self.nodes, max_seeds=self.max_seeds))


class Proving:
    """Labels the positions of `Proofs` with its `teacher` (made once a worker)."""

    def __init__(self, teacher: Teacher) -> None:
        self.teacher = teacher

    def play(self, start: GameState, seed: int) -> dict[str, Any]:
        from mancala.arena.match import make_record

        began = time.perf_counter()
        guess = max(self.teacher.search.evaluate(start)["moves"].values())
        values, exact = self.teacher.valued(start, guess)
        ms = round(1000 * (time.perf_counter() - began), 1)
        best = max(start.legal_moves(), key=lambda move: values[move])
        name = self.teacher.name
        return make_record(
            start, [name, name], [best], start.play(best), seed,
            values=[values], exact=[exact], label_ms=[ms], teacher=name,
        )  # fmt: skip
