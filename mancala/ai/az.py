"""`az-net` and `az[:simulations]`: AlphaZero-style players of a policy-value network.

`az-net` plays the policy head's favourite legal move, without search. `az` runs PUCT
search in numba on the fast engine: a leaf is valued by the network's value head (no
rollouts) and its moves get the policy head's priors; a move is chosen by
Q + c * prior * sqrt(N(parent)) / (1 + N(child)), an unvisited move counting as its
node's mean value less `FIRST_PLAY`. Each node records the player to move there, read
from the position (an extra turn keeps the mover), and a child's statistics are kept from
the view of the player who chose it. `az:t=SECONDS` searches for a time instead.

Exact values: a finished game, and on Kalah a position the solver's endgame database
holds (when it is cached), is valued by its final margin squashed as the network's value
target is (tanh(margin / its value_scale)) and not searched further; a node all of whose
moves are exact becomes exact. When every move of the root is exact, the best margin is
played. And on Kalah, before it searches, az asks the solver to prove the position
(`PROOF_SECONDS` at most, half of a timed move's): a move of the proved value is played
without search. Proofs are quick once the houses hold a few more seeds than the
database (`AZ(prove=False)` searches every position).

The forward pass runs inside the kernel (`forward`): the one-hot first layer is a sum of
the weight rows of the counts on the board, the second layer a float32 `np.dot`, so a
leaf costs no Python at all. The search keeps to its `Limits`: it stops at the deadline
with what it has, and once its node pool (`tree_nodes`, within `limits.memory`) is full.

Tak: the same players search with `mancala.ai.az_tak` (its own kernel on the Tak
engine, one prior a legal action id); results are per action id there, per house here.

Weights: mancala/models/<game>/az-net.keras (`mancala.nn_lib.policy_value`); a name plays
every game it has weights for and refuses the others before a move. `az-file:PATH[,t=S]`
(or `,n=SIMULATIONS`) plays the weights of another file, a run's candidate say, of
whichever game they fit (`az_from_file`): local only, as it reads a path of this machine.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np
from numba import njit

from mancala.ai import az_tak
from mancala.ai.base import Player, is_sowing, require_moves
from mancala.ai.gumbel import (
    CONSIDERED,
    chosen_move,
    considered_visits,
    improved_policy,
)
from mancala.ai.gumbel import root_move as gumbel_root_move
from mancala.ai.limits import REGISTRY_LIMITS, Limits
from mancala.ai.solver import check_fits, database_ready, proved, shared_solver
from mancala.core.deadline import Deadline
from mancala.core.tables import pool_nodes
from mancala.game_state import GameState
from mancala.games import capabilities, new_game
from mancala.games.sowing import engine
from mancala.games.sowing.solver import Solver, default_max_seeds, relative_board
from mancala.games.sowing.solver.ranking import binomial_table, rank
from mancala.nn_lib.base import WeightsError
from mancala.nn_lib.encoders import ONE_HOT_BINS, SCALE
from mancala.nn_lib.policy_value import (
    AZ_GAMES,
    NAME,
    PolicyValue,
    make_command,
    trained_games,
)

DEFAULT_SIMULATIONS = 5000  # the registry's default too; docs/az.md times it
MAX_SIMULATIONS = 1_000_000  # the registry's bound
EXPLORATION = 1.5
NO_MARGIN = -(1 << 20)  # a position's exact final margin (Tak: its exact value) is not known
FIRST_PLAY = 0.3  # an unvisited move counts as its node's mean value less this
# nodes a timed search (`az:t=S`) reserves per second: above its speed
POOL_PER_SECOND = {"kalah": 2_000_000, "sungka": 2_000_000, "tak": 150_000}
PROOF_SECONDS = 0.05  # the most a move gives the solver's proof of its position (Kalah)
PROOF_SEEDS = 40  # no proof is tried with more seeds than this in the houses


@njit(cache=True, nogil=True)
def forward(board, player, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden):
    """The value for `player` (to move) of `board`; its policy logits into `logits`."""
    own = player * (h + 1)
    opp = (1 - player) * (h + 1)
    hidden[:] = b1
    for i in range(h):
        hidden += w1[i * ONE_HOT_BINS + min(board[own + i], ONE_HOT_BINS - 1)]
        hidden += w1[(h + i) * ONE_HOT_BINS + min(board[opp + i], ONE_HOT_BINS - 1)]
    stores = 2 * h * ONE_HOT_BINS
    hidden += w1[stores] * np.float32(board[own + h] / SCALE)
    hidden += w1[stores + 1] * np.float32(board[opp + h] / SCALE)
    hidden2 = np.maximum(np.dot(np.maximum(hidden, np.float32(0.0)), w2) + b2, np.float32(0.0))
    logits[:] = np.dot(hidden2, wp) + bp
    return math.tanh(np.dot(hidden2, wv) + bv[0])


@njit(cache=True, nogil=True)
def set_priors(board, player, h, logits, priors):
    """Softmax of `logits` over `player`'s legal houses into `priors` (0 elsewhere)."""
    lo = player * (h + 1)
    top = -np.inf
    for m in range(h):
        if board[lo + m] > 0 and logits[m] > top:
            top = logits[m]
    total = 0.0
    for m in range(h):
        priors[m] = math.exp(logits[m] - top) if board[lo + m] > 0 else 0.0
        total += priors[m]
    for m in range(h):
        priors[m] /= total


@njit(cache=True, nogil=True)
def exact_margin(board, player, h, kalah, endgame, rel):
    """The final margin for `player` (to move) of a finished game, or of a Kalah position
    the endgame database `endgame` (values, binomials, most seeds) holds; else NO_MARGIN."""
    own, opp = player * (h + 1), (1 - player) * (h + 1)
    if engine.is_over(board, h, kalah):
        diff = engine.score_diff(board, h)
        return diff if player == 0 else -diff
    db, binom, most = endgame
    seeds = 0
    for i in range(h):
        rel[i], rel[h + i] = board[own + i], board[opp + i]
        seeds += board[own + i] + board[opp + i]
    if not kalah or seeds > most:
        return NO_MARGIN
    return board[own + h] - board[opp + h] + db[rank(rel, binom, 0)]


@njit(cache=True, nogil=True)
def solved_margin(node, board, player, h, children, players, margins):
    """The exact margin for `player` of `node` when every legal move's is known (the best
    of them), else NO_MARGIN."""
    best = NO_MARGIN
    lo = player * (h + 1)
    for m in range(h):
        if board[lo + m] == 0:
            continue
        child = children[node, m]
        if child < 0 or margins[child] == NO_MARGIN:
            return NO_MARGIN
        best = max(best, margins[child] if players[child] == player else -margins[child])
    return best


@njit(cache=True, nogil=True)
def puct(
    board0, player0, h, kalah, ec, rl, counter, size,
    c, fpu, noise, noise_frac, weights, scale, endgame, gumbel, schedule, out,
):  # fmt: skip
    """PUCT simulations until counter[0] passes counter[1] (a deadline lowers it to -1) or
    the pool of `size` nodes is full. An unvisited move counts as the node's mean value
    for its player less `fpu`. `noise` (per house) is mixed into the root's priors
    with weight `noise_frac`. With a `schedule` (`gumbel.considered_visits`), the root
    chooses its move as Gumbel AlphaZero's does (`gumbel.root_move`, the noise `gumbel`
    per house), the tree below it by PUCT. Per root move, visits into out[0], summed
    value for the root player into out[1], its exact final margin into out[2] (NO_MARGIN:
    not known) and its prior into out[3].
    A finished game, a position in the endgame database, or a node whose every move has
    an exact value is a leaf of exact value: its margin squashed as the network's value
    target is (tanh(margin / `scale`)). Returns the network's value of the root."""
    w1, b1, w2, b2, wp, bp, wv, bv = weights
    boards = np.empty((size, board0.shape[0]), np.int64)
    players = np.empty(size, np.int64)
    children = np.full((size, h), -1, np.int64)
    priors = np.zeros((size, h), np.float64)
    visits = np.zeros(size, np.float64)
    values = np.zeros(size, np.float64)  # from the view of the parent's player
    own = np.zeros(size, np.float64)  # summed value for the node's own player to move
    margins = np.full(size, NO_MARGIN, np.int64)  # exact final margin for its own player
    rel = np.empty(2 * h, np.int64)
    path = np.empty(size, np.int64)
    logits = np.empty(h, np.float32)
    hidden = np.empty(b1.shape[0], np.float32)
    boards[0] = board0
    players[0] = player0
    root_value = forward(board0, player0, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden)
    set_priors(board0, player0, h, logits, priors[0])
    own[0] = root_value
    lo = player0 * (h + 1)
    for m in range(h):
        if board0[lo + m] > 0:
            priors[0, m] = (1.0 - noise_frac) * priors[0, m] + noise_frac * noise[m]
    visits[0] = 1.0
    used = 1
    legal0 = np.zeros(h, np.bool_)
    for m in range(h):
        legal0[m] = board0[lo + m] > 0
    root_visits = np.zeros(h, np.float64)
    root_means = np.zeros(h, np.float64)
    scratch = np.empty(h, np.float64)
    while counter[0] < counter[1] and used < size:
        counter[0] += 1
        node = 0
        depth = 0
        path[0] = 0
        while True:
            b = boards[node]
            p = players[node]
            if margins[node] != NO_MARGIN and node > 0:
                value = math.tanh(margins[node] / scale)
                break
            lo = p * (h + 1)
            root_n = math.sqrt(visits[node])
            first = own[node] / visits[node] - fpu
            best = -1e300
            move = -1
            if node == 0 and schedule.shape[0] > 0:
                for m in range(h):
                    child = children[0, m]
                    root_visits[m] = visits[child] if child >= 0 else 0.0
                    root_means[m] = values[child] / visits[child] if child >= 0 else 0.0
                target = schedule[min(int(visits[0]) - 1, schedule.shape[0] - 1)]
                move = gumbel_root_move(
                    target, gumbel, root_value, priors[0], root_visits, root_means, legal0, scratch
                )
            for m in range(h if move < 0 else 0):
                if b[lo + m] == 0:
                    continue
                child = children[node, m]
                q, n = (first, 0.0) if child < 0 else (values[child] / visits[child], visits[child])
                score = q + c * priors[node, m] * root_n / (1.0 + n)
                if score > best:
                    best = score
                    move = m
            child = children[node, move]
            depth += 1
            if child >= 0:
                node = child
                path[depth] = node
                continue
            child = used  # a new leaf: valued by the network (or the rules, when over)
            used += 1
            boards[child] = b
            players[child] = engine.play(boards[child], p, move, h, kalah, ec, rl)
            children[node, move] = child
            path[depth] = child
            node = child
            b = boards[child]
            p = players[child]
            margins[child] = exact_margin(b, p, h, kalah, endgame, rel)
            if margins[child] != NO_MARGIN:
                value = math.tanh(margins[child] / scale)
            else:
                value = forward(b, p, h, w1, b1, w2, b2, wp, bp, wv, bv, logits, hidden)
                set_priors(b, p, h, logits, priors[child])
            break
        for k in range(depth - 1, 0, -1):  # a node whose every move is exact is exact too
            up = path[k]
            margins[up] = solved_margin(up, boards[up], players[up], h, children, players, margins)
            if margins[up] == NO_MARGIN:
                break
        leaf_player = players[node]
        visits[0] += 1
        own[0] += value if player0 == leaf_player else -value
        for k in range(1, depth + 1):
            child = path[k]
            visits[child] += 1
            values[child] += value if players[path[k - 1]] == leaf_player else -value
            own[child] += value if players[child] == leaf_player else -value
    for m in range(h):
        child = children[0, m]
        out[0, m] = visits[child] if child >= 0 else 0.0
        out[1, m] = values[child] if child >= 0 else 0.0
        out[2, m] = NO_MARGIN
        if child >= 0 and margins[child] != NO_MARGIN:
            out[2, m] = margins[child] if players[child] == player0 else -margins[child]
        out[3, m] = priors[0, m]
    return root_value


EndgameTable = tuple[np.ndarray, np.ndarray, int]
NO_ENDGAME: EndgameTable = (np.zeros(1, np.int8), np.zeros((1, 1), np.int64), -1)
_ENDGAMES: dict[tuple[int, bool], EndgameTable] = {}
_LOADING = threading.Lock()


def endgame_table(state: GameState) -> EndgameTable:
    """(values, binomials, most seeds) of the endgame database of `state`'s Kalah board,
    the one the process's `solver` uses, when it is cached; else NO_ENDGAME."""
    if "solver" not in capabilities(state) or not database_ready(state.houses, state.empty_capture):
        return NO_ENDGAME
    most = default_max_seeds(state.houses)
    if default_max_seeds(state.houses, sum(state.board)) != most:  # a smaller game's own
        return NO_ENDGAME
    key = (state.houses, state.empty_capture)
    with _LOADING:
        if key not in _ENDGAMES:
            db = shared_solver(state).db
            _ENDGAMES[key] = (db, binomial_table(most, 2 * state.houses), most)
    return _ENDGAMES[key]


def node_bytes(houses: int) -> int:
    """Bytes of one tree node: board, player, children, priors, visits, value, path slot."""
    return 8 * ((2 * houses + 2) + 1 + 2 * houses + 3)


def tree_nodes(simulations: int, houses: int, memory: int) -> int:
    """The node pool of a search: one node a simulation (and the root), within `memory`.

    >>> tree_nodes(10**9, 6, 16 << 20), tree_nodes(100, 6, 16 << 20)
    (69905, 102)
    """
    return pool_nodes(simulations, memory, node_bytes(houses))


_SHIPPED: dict[str, tuple[int, PolicyValue]] = {}  # game -> (its file's mtime, the net)


def shipped_network(game: str) -> PolicyValue:
    """The shipped policy-value network of `game`, read once per process and shared by
    the players that use it (read again when its file changes); WeightsError if none."""
    net = PolicyValue(game)
    stamp = net.path.stat().st_mtime_ns if net.path.exists() else -1
    with _LOADING:
        if _SHIPPED.get(game, (None,))[0] != stamp:
            _SHIPPED[game] = stamp, net.load()
        return _SHIPPED[game][1]


class AZNet(Player):
    """`az-net`: the policy head's favourite legal move. `net` (a loaded PolicyValue) or
    `path` (weights of `game`) override the shipped weights of every game."""

    def __init__(
        self,
        seed: int | None = None,
        path: str | os.PathLike | None = None,
        game: str = "kalah",
        net: PolicyValue | None = None,
    ) -> None:
        super().__init__(seed)
        if net is None and path is not None:
            net = PolicyValue(game, path).load()
        if net is not None:
            nets = [net]
        else:
            games = [g["variant"] for g in trained_games()] or ["kalah"]  # kalah: says how
            nets = [shipped_network(g) for g in games]
        # not `nets`: a zoo player's attribute, which the arena sends as numpy weights
        self.networks = {n.game: n for n in nets}
        self.np_rng = np.random.default_rng(seed)
        self._kernel_weights: dict[int, tuple] = {}

    def tak_weights(self, net: PolicyValue) -> az_tak.Weights:
        """`net`'s weights as the Tak kernel reads them, made once per set of weights."""
        key = id(net.arrays)
        if key not in self._kernel_weights:
            self._kernel_weights = {key: az_tak.kernel_weights(net.arrays, net.options["size"])}
        return self._kernel_weights[key]

    def net_for(self, state: GameState) -> PolicyValue:
        """The network of `state`'s game; ValueError when there are no weights for it."""
        net = self.networks.get(state.game)
        if net is None:
            raise ValueError(
                f"{NAME} has no weights for {state.game}; make them with "
                f"`{make_command(state.game)}`"
            )
        net.check_state(state)
        return net

    def policy(self, state: GameState) -> tuple[dict[int, float], float]:
        """({legal move: prior}, value for the mover) of the network, without search."""
        moves = require_moves(state)
        net = self.net_for(state)
        if not is_sowing(state):
            legal, priors, value = az_tak.policy(state, self.tak_weights(net))
            return {m: float(p) for m, p in zip(legal, priors)}, value
        board, player, (h, *_) = engine.to_arrays(state)
        logits = np.empty(h, np.float32)
        hidden = np.empty(net.arrays[1].shape[0], np.float32)
        value = forward(board, player, h, *net.arrays, logits, hidden)
        priors = np.zeros(h)
        set_priors(board, player, h, logits, priors)
        return {m: float(priors[m]) for m in moves}, float(value)

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
    return max(1, min(MAX_SIMULATIONS, math.ceil(seconds * POOL_PER_SECOND[game])))


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
        for game in self.networks:  # the database and the kernel loaded now, not in a move
            start = new_game(game, **AZ_GAMES[game])
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
        if "sowing" not in capabilities(state):
            return self._tak(state, simulations, seconds, noise, gumbel, schedule)
        spread = np.zeros((2, state.houses))
        spread[:, legal] = noise, gumbel
        return self._puct(state, simulations, seconds, spread[0], spread[1], schedule)

    def _tak(self, state, simulations, seconds, noise, gumbel, schedule):
        net = self.net_for(state)
        counter = np.array([0, simulations], np.int64)
        nodes = az_tak.tree_nodes(simulations, self.limits.memory)
        with Deadline(seconds).stopping(counter):
            out, value = az_tak.search(
                state, self.tak_weights(net), counter, nodes, self.exploration,
                self.first_play, noise, self.noise, gumbel, schedule,
            )  # fmt: skip
        legal = state.legal_moves()
        dense = np.zeros((4, state.num_actions))
        dense[2] = NO_MARGIN
        dense[:, legal] = out
        dense[2, legal] = np.where(out[2] == az_tak.UNKNOWN, NO_MARGIN, out[2])
        return dense[0], dense[1], value, dense[2], dense[3]

    def _puct(self, state, simulations, seconds, noise, gumbel, schedule):
        net = self.net_for(state)
        board, player, (h, kalah, ec, rl) = engine.to_arrays(state)
        endgame = NO_ENDGAME
        if self.endgame:
            endgame = endgame_table(state)
        counter = np.array([0, simulations], np.int64)
        out = np.zeros((4, h))
        size = tree_nodes(simulations, h, self.limits.memory)
        with Deadline(seconds).stopping(counter):
            value = puct(
                board, player, h, kalah, ec, rl, counter, size, self.exploration,
                self.first_play, noise, self.noise, net.arrays, net.value_scale, endgame,
                gumbel, schedule, out,
            )  # fmt: skip
        return out[0], out[1], float(value), out[2], out[3]

    def gumbel_search(
        self, state: GameState, rng: np.random.Generator, simulations: int | None = None
    ) -> tuple[int, np.ndarray, np.ndarray, float]:
        """(the move to play, the improved policy, the visits, the search's value of the
        position for the mover: the mean of its simulations and the network's value), one
        entry a move id, of a search whose root is Gumbel AlphaZero's (`mancala.ai.gumbel`)
        of `simulations` (default: the player's)."""
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
        move = chosen_move(gumbel, value, priors, visits, means, legal)
        searched = (value + sums.sum()) / (1.0 + visits.sum())
        return move, improved_policy(value, priors, visits, means, legal), visits, searched

    def best(
        self, state: GameState, seconds: float | None = None
    ) -> tuple[int, np.ndarray, np.ndarray]:
        """(the move to play, visits, means) of a search: the best exact margin when every
        move's is known, else the most visited move (the better mean breaks ties)."""
        visits, means, _, margins, _ = self.search(state, seconds)
        moves = require_moves(state)
        known = [m for m in moves if margins[m] != NO_MARGIN]
        won = "margin" not in capabilities(state) and any(margins[m] > 0 for m in known)
        if len(known) == len(moves) or won:
            move = max(known, key=lambda m: (margins[m], visits[m]))
        else:
            move = max(moves, key=lambda m: (visits[m], means[m]))
        self.simulations_done, self.score = int(visits.sum()), float(means[move])
        return move, visits, means

    def proof_solver(self, state: GameState) -> Solver | None:
        """The solver that may prove `state` within the limits, if any."""
        if not self.prove or "solver" not in capabilities(state):
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

    def choose_move(self, state: GameState) -> int:
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
    PATH, of the game whose network they fit. ValueError for a bad option; WeightsError
    when PATH holds no policy-value network of any game."""
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
    return AZ(seed, net=load_any_game(path), **budget)


def load_any_game(path: str | os.PathLike) -> PolicyValue:
    """The policy-value network at `path`, of the first game whose shapes it fits."""
    if not os.path.isfile(path):
        raise WeightsError(f"no weights file {path}")
    errors = []
    for game in AZ_GAMES:
        try:
            return PolicyValue(game, path).load()
        except WeightsError as error:
            errors.append(str(error))
    raise WeightsError(f"{path} is no policy-value network of any game: {errors[0]}")
