"""`az-net` and `az[:simulations]`: AlphaZero-style players of a policy-value network.

`az-net` plays the policy head's favourite legal move, without search. `az` runs the one
PUCT search (`mancala.ai.puct`) in numba over its game's kernel adapter
(`mancala.games.search_kernel`): a leaf is valued by the network's value head (no
rollouts) and its moves get the policy head's priors. `az:t=SECONDS` searches for a
time instead. The search keeps to its `Limits`: it stops at the deadline with what it
has, and once its node pool (`puct.tree_nodes`, within `limits.memory`) is full.

Exact values: a finished game, and on Kalah a position the solver's endgame database
holds (when it is cached), is valued exactly and not searched further; a node all of
whose moves are exact (in Tak, one with a winning move) becomes exact. When every move
of the root is exact (or a Tak move wins), the best is played. And on Kalah, a position
of the solver's opening book (`mancala.games.sowing.solver.book`: the game's first two
turns) is played from the book; before it searches any other, az asks the solver to
prove the position (`PROOF_SECONDS` at most, half of a
timed move's): a move of the proved value is played without search. Proofs are quick
once the houses hold a few more seeds than the database (`AZ(prove=False)` searches
every position).

Weights: mancala/models/<game>/az-net.keras (`mancala.nn_lib.policy_value`); a name plays
every game it has weights for and refuses the others before a move. `az-file:PATH[,t=S]`
(or `,n=SIMULATIONS`) plays the weights of another file, a run's candidate say, of
whichever game they fit, or a guide's file (Tak's az-guide-SIZE.json) (`az_from_file`):
local only, as it reads a path of this machine.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np

from mancala.ai import puct
from mancala.ai.base import Player, require_moves
from mancala.ai.gumbel import (
    CONSIDERED,
    chosen_move,
    considered_visits,
    improved_policy,
    search_value,
)
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.solver import check_fits, database_ready, proved, shared_book, shared_solver
from mancala.core.deadline import Deadline
from mancala.game_state import GameState
from mancala.games import DEFAULT_GAME, Capability, capabilities, describe, kernel_adapter, new_game
from mancala.games import game as game_entry
from mancala.games.search_kernel import UNKNOWN
from mancala.games.sowing.kernel import NO_ENDGAME, EndgameTable
from mancala.games.sowing.solver import Solver, relative_board
from mancala.games.sowing.solver.book import book_key
from mancala.games.sowing.solver.ranking import binomial_table
from mancala.nn_lib.base import WeightsError
from mancala.nn_lib.policy_value import (
    AZ_GAMES,
    NAME,
    Guide,
    PolicyValue,
    board_name,
    file_rules,
    guide_from_file,
    make_command,
    shipped_guide,
    trained_games,
)

DEFAULT_SIMULATIONS = 5000  # the registry's default too; docs/az.md times it
MAX_SIMULATIONS = 1_000_000  # the registry's bound
EXPLORATION = 1.5
NO_MARGIN = -(1 << 20)  # a position's exact final margin (Tak: its exact value) is not known
FIRST_PLAY = 0.3  # an unvisited move counts as its node's mean value less this
PROOF_SECONDS = 0.05  # the most a move gives the solver's proof of its position (Kalah)
PROOF_SEEDS = 40  # no proof is tried with more seeds than this in the houses


_ENDGAMES: dict[tuple[int, bool, int], EndgameTable] = {}
_LOADING = threading.Lock()


def endgame_table(state: GameState) -> EndgameTable:
    """(values, binomials, most seeds) of the endgame database of `state`'s Kalah board,
    the one the process's `solver` uses (the largest cached), when it is cached; else
    NO_ENDGAME."""
    if Capability.SOLVER not in capabilities(state) or not database_ready(state):
        return NO_ENDGAME
    with _LOADING:
        solver = shared_solver(state)
        key = (state.houses, state.empty_capture, solver.max_seeds)
        if key not in _ENDGAMES:
            most = solver.max_seeds
            _ENDGAMES[key] = (solver.db, binomial_table(most, 2 * state.houses), most)
    return _ENDGAMES[key]


_SHIPPED: dict[str, tuple[int, PolicyValue]] = {}  # board -> (its file's mtime, the net)


def shipped_network(game: str, options: dict | None = None) -> PolicyValue | Guide:
    """The shipped policy-value network of a board of `game` (its default board unless
    `options` say otherwise), read once per process and shared by the players that use
    it (read again when its file changes), or its shipped guide where the game has one for
    the board (`shipped_guide`); WeightsError if none."""
    guide = shipped_guide(game, options)
    if guide is not None:
        return guide
    net = PolicyValue(game, options=options)
    stamp = net.path.stat().st_mtime_ns if net.path.exists() else -1
    with _LOADING:
        if _SHIPPED.get(net.board, (None,))[0] != stamp:
            _SHIPPED[net.board] = stamp, net.load()
        return _SHIPPED[net.board][1]


class AZNet(Player):
    """`az-net`: the policy head's favourite legal move. `net` (a loaded PolicyValue) or
    `path` (weights of `game`'s default board) override the shipped weights of every
    board."""

    def __init__(
        self,
        seed: int | None = None,
        path: str | os.PathLike | None = None,
        game: str = DEFAULT_GAME,
        net: PolicyValue | None = None,
    ) -> None:
        super().__init__(seed)
        if net is None and path is not None:
            net = PolicyValue(game, path).load()
        self.shipped = net is None  # the shipped weights of every board, not one file's
        if net is not None:
            nets = [net]
        else:
            boards = trained_games() or [{"variant": DEFAULT_GAME}]  # says how to make them
            nets = [shipped_network(b["variant"], b) for b in boards]
        # not `nets`: a zoo player's attribute, which the arena sends as numpy weights
        self.networks = {n.board: n for n in nets}
        self.np_rng = np.random.default_rng(seed)
        self._kernel_weights: dict[str, tuple] = {}  # board -> (the net's arrays, as read)

    def kernel(self, state: GameState, endgame: EndgameTable | None = None):
        """The kernel of a search from `state` (`mancala.games.search_kernel`) with its
        game's network, whose weights are read into the kernel's form once per set."""
        net = self.net_for(state)
        adapter = kernel_adapter(state.game)
        arrays, weights = self._kernel_weights.get(net.board, (None, None))
        if arrays is not net.arrays:
            arrays, weights = net.arrays, adapter.weights(net.arrays, state)
            self._kernel_weights[net.board] = arrays, weights
        return adapter.kernel(
            state, weights, net.value_scale, endgame, score_weight=net.score_weight
        )

    def net_for(self, state: GameState) -> PolicyValue:
        """The network of `state`'s board; ValueError when there are no weights for it."""
        known = state.game in AZ_GAMES
        net = self.networks.get(board_name(state.game, state.options) if known else "")
        if net is None and not self.shipped:  # a file's: says which board it was trained for
            net = next((n for n in self.networks.values() if n.game == state.game), None)
        if net is None:
            make = f"; make them with `{make_command(state.game, state.options)}`" if known else ""
            raise ValueError(f"{NAME} has no weights for {describe(state)}{make}")
        net.check_state(state)
        return net

    def policy(self, state: GameState) -> tuple[dict[int, float], float]:
        """({legal move: prior}, value for the mover) of the network, without search."""
        require_moves(state)
        moves, priors, value = puct.policy(self.kernel(state))
        return {m: float(p) for m, p in zip(moves, priors)}, value

    def choose_move(self, state: GameState) -> int:
        priors, _ = self.policy(state)
        return max(priors, key=priors.__getitem__)

    def evaluate(self, state: GameState) -> dict:
        """{"value": the value head's, "moves": {move: prior}}; mover's view."""
        priors, value = self.policy(state)
        return {"value": value, "moves": priors}


def timed_simulations(seconds: float, game: str) -> int:
    """The simulations `az:t=SECONDS` may run on `game` before its deadline: more than
    it can do in that time, within the registry's bound.

    >>> timed_simulations(0.1, "kalah"), timed_simulations(3600, "kalah")
    (200000, 1000000)
    """
    return max(1, min(MAX_SIMULATIONS, math.ceil(seconds * game_entry(game).pool_per_second)))


class AZ(AZNet):
    """`az:N`: PUCT search of N simulations a move guided by the policy-value network;
    `az:t=S` (`seconds`) searches S seconds a move instead. `noise` > 0 mixes
    Dirichlet(`alpha`) noise into the root's priors with that weight (self-play
    exploration); `endgame` uses the solver's endgame database where it is cached, and
    `prove` the solver's proof of a Kalah position before searching (`solver`, else
    the process's shared one when its database is cached)."""

    def __init__(
        self,
        seed: int | None = None,
        simulations: int | None = None,
        seconds: float | None = None,
        limits: Limits = REGISTRY_LIMITS,
        exploration: float = EXPLORATION,
        first_play: float = FIRST_PLAY,
        noise: float = 0.0,
        alpha: float = 1.0,
        endgame: bool = True,
        prove: bool = True,
        solver: Solver | None = None,
        **weights,
    ) -> None:
        super().__init__(seed, **weights)
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"az seconds must be a positive number, not {seconds!r}")
        if simulations is None and seconds is None:
            simulations = DEFAULT_SIMULATIONS
        if simulations is not None and simulations < 1:
            raise ValueError(f"az simulations must be at least 1, not {simulations!r}")
        if not 0 <= noise <= 1:
            raise ValueError(f"az noise must be in 0..1, not {noise!r}")
        self.simulations, self.seconds, self.limits = simulations, seconds, limits
        self.exploration, self.noise, self.alpha = exploration, noise, alpha
        self.first_play = first_play
        self.endgame, self.prove, self.solver = endgame, prove, solver
        for net in self.networks.values():  # the database and kernel loaded now, not in a move
            start = new_game(net.game, **net.options)
            self._search(start, 1, math.inf, np.zeros(len(start.legal_moves())))

    def budget(self, game: str) -> int:
        """The simulations a move on `game`: those asked for, else more than the time
        asked for allows."""
        if self.simulations is not None:
            return self.simulations
        return timed_simulations(self.seconds, game)

    def _move_seconds(self) -> float:
        return min(self.seconds or math.inf, self.limits.seconds)

    def search(
        self, state: GameState, seconds: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray, np.ndarray]:
        """(visits per move, mean value per move for the mover, the network's value,
        exact final margin per move for the mover: NO_MARGIN where not known, the
        network's prior per move), in at most `seconds` (default: the move's); a move is a
        house (Kalah, Sungka) or an action id (Tak)."""
        legal = require_moves(state)
        alpha = np.full(len(legal), self.alpha)
        noise = self.np_rng.dirichlet(alpha) if self.noise else np.zeros(len(legal))
        seconds = self._move_seconds() if seconds is None else seconds
        visits, sums, value, margins, priors = self._search(
            state, self.budget(state.game), seconds, noise
        )
        means = np.divide(sums, visits, out=np.zeros(len(visits)), where=visits > 0)
        return visits, means, value, margins, priors

    def _search(
        self,
        state: GameState,
        simulations: int,
        seconds: float,
        noise: np.ndarray,
        gumbel: np.ndarray | None = None,
    ):
        """(visits, summed values, the network's value, exact margins, priors) of one
        search, one entry per move id; `noise` has one entry a legal move, and so has
        `gumbel`, which makes the root Gumbel AlphaZero's (`mancala.ai.gumbel`)."""
        legal = state.legal_moves()
        schedule = np.zeros(0, np.int64)
        if gumbel is not None:
            schedule = considered_visits(min(CONSIDERED, len(legal)), simulations)
        else:
            gumbel = np.zeros(len(legal))
        endgame = endgame_table(state) if self.endgame else NO_ENDGAME
        kernel = self.kernel(state, endgame)
        counter = np.array([0, simulations], np.int64)
        nodes = puct.tree_nodes(simulations, self.limits.memory, kernel.edges, kernel.stored)
        with Deadline(seconds).stopping(counter):
            out, value = puct.search(
                kernel, counter, nodes, self.exploration, self.first_play, noise, self.noise,
                gumbel, schedule,
            )  # fmt: skip
        dense = np.zeros((4, state.num_actions))
        dense[2] = NO_MARGIN
        dense[:, legal] = out
        dense[2, legal] = np.where(out[2] == UNKNOWN, NO_MARGIN, out[2])
        return dense[0], dense[1], value, dense[2], dense[3]

    def gumbel_search(
        self, state: GameState, rng: np.random.Generator, simulations: int | None = None
    ) -> tuple[int, np.ndarray, np.ndarray, float]:
        """(the move to play, the improved policy, the visits, the search's value of the
        position for the mover: `mancala.ai.gumbel.search_value`), one
        entry a move id, of a search whose root is Gumbel AlphaZero's (`mancala.ai.gumbel`)
        of `simulations` (default: the player's)."""
        gumbel, root = self.gumbel_root(state, rng, simulations)
        move = chosen_move(gumbel, *root)
        return move, improved_policy(*root), root[2], search_value(*root)

    def gumbel_root(
        self, state: GameState, rng: np.random.Generator, simulations: int | None = None
    ) -> tuple[np.ndarray, tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """(the Gumbel noise, and the root as `mancala.ai.gumbel` reads it: the network's
        value, priors, visits, mean values, legal moves), one entry a move id, of the search
        `gumbel_search` makes."""
        moves = require_moves(state)
        legal = np.zeros(state.num_actions, bool)
        legal[moves] = True
        noise = rng.gumbel(size=len(moves))
        simulations = simulations or self.budget(state.game)
        visits, sums, value, _, priors = self._search(
            state, simulations, self._move_seconds(), np.zeros(len(moves)), noise
        )
        means = np.divide(sums, visits, out=np.zeros(len(visits)), where=visits > 0)
        gumbel = np.zeros(state.num_actions)
        gumbel[moves] = noise
        return gumbel, (value, priors, visits, means, legal)

    def best(
        self, state: GameState, seconds: float | None = None
    ) -> tuple[int, np.ndarray, np.ndarray]:
        """(the move to play, visits, means) of a search: the best exact margin when every
        move's is known, else the most visited move (the better mean breaks ties)."""
        visits, means, _, margins, _ = self.search(state, seconds)
        moves = require_moves(state)
        known = [m for m in moves if margins[m] != NO_MARGIN]
        won = Capability.MARGIN not in capabilities(state) and any(margins[m] > 0 for m in known)
        if len(known) == len(moves) or won:
            move = max(known, key=lambda m: (margins[m], visits[m]))
        else:
            move = max(moves, key=lambda m: (visits[m], means[m]))
        self.simulations_done, self.score = int(visits.sum()), float(means[move])
        return move, visits, means

    def proof_solver(self, state: GameState) -> Solver | None:
        """The solver that may prove `state` within the limits, if any."""
        if not self.prove or Capability.SOLVER not in capabilities(state):
            return None
        if sum(relative_board(state)) > PROOF_SEEDS:
            return None
        if self.solver is not None:
            return self.solver
        if not self.endgame or endgame_table(state) is NO_ENDGAME:
            return None
        try:
            check_fits(state, self.limits)
        except ValueError:  # its search scratch is more than the limits allow
            return None
        return shared_solver(state)

    def proved_move(self, state: GameState, deadline: Deadline) -> int | None:
        """A move of the position's exact value when a solver proves it by `deadline`,
        starting from the network's value; else None."""
        solver = self.proof_solver(state)
        if solver is None:
            return None
        _, value = self.policy(state)
        guess = self.net_for(state).seeds(value)
        found = proved(solver, state, deadline, guess)
        return None if found is None else min(found["best"])

    def book_move(self, state: GameState) -> int | None:
        """A best move of the solver's opening book where it holds `state` and az has the
        solver's help (`prove`), else None."""
        self.net_for(state)  # a game it has no weights for is refused, as by a search
        if not self.prove or Capability.SOLVER not in capabilities(state):
            return None
        entry = shared_book(state).get(book_key(state))
        return None if entry is None else min(entry["best"])

    def choose_move(self, state: GameState) -> int:
        booked = self.book_move(state)
        if booked is not None:
            return booked
        move = Deadline(self._move_seconds())
        proof = Deadline(min(PROOF_SECONDS, move.remaining() / 2))
        proved = self.proved_move(state, proof)
        if proved is not None:
            return proved
        return self.best(state, move.remaining())[0]

    def evaluate(self, state: GameState) -> dict:
        """{"value", "moves": {move: mean value}, "visits": {move: n}}; mover's view."""
        best, visits, means = self.best(state)
        moves = require_moves(state)
        return {
            "value": float(means[best]),
            "moves": {m: float(means[m]) for m in moves},
            "visits": {m: int(visits[m]) for m in moves},
        }


def az_from_file(seed: int | None = None, spec: str = "") -> AZ:
    """`az-file:PATH[,t=SECONDS|,n=SIMULATIONS]`: `az` with the policy-value weights at
    PATH, of the game whose network they fit, or with the guide at PATH (a file named as
    guides ship: az-guide-SIZE.json on Tak). ValueError for a bad option or a guide file
    that holds none; WeightsError when PATH holds no policy-value network of any game."""
    path, _, options = spec.partition(",")
    if not path:
        raise ValueError("az-file needs the weights' path: az-file:PATH[,t=SECONDS|,n=N]")
    budget: dict[str, float] = {}
    for option in filter(None, options.split(",")):
        key, _, value = option.partition("=")
        try:
            number = float(value) if key == "t" else int(value)
        except ValueError:
            number = -1
        if key == "t" and 0 < number <= 3600:
            budget["seconds"] = number
        elif key == "n" and 1 <= number <= MAX_SIMULATIONS:
            budget["simulations"] = number
        else:
            raise ValueError(
                f"az-file option {option!r}: t=SECONDS (up to 3600) or n=SIMULATIONS "
                f"(1..{MAX_SIMULATIONS:,})"
            )
    return AZ(seed, net=guide_from_file(path) or load_any_game(path), **budget)


def load_any_game(path: str | os.PathLike) -> PolicyValue:
    """The policy-value network at `path`: of the board its metadata names, else of the
    first game whose default board's shapes it fits."""
    if not os.path.isfile(path):
        raise WeightsError(f"no weights file {path}")
    rules = file_rules(path)
    if rules:
        return PolicyValue(rules["variant"], path, rules).load()
    errors = []
    for game in AZ_GAMES:
        try:
            return PolicyValue(game, path).load()
        except WeightsError as error:
            errors.append(str(error))
    raise WeightsError(f"{path} is no policy-value network of any game: {errors[0]}")
