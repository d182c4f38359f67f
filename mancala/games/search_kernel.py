"""The kernel adapter: what a game's numba engine gives the tree-search drivers (PUCT,
`mancala.ai.puct`; UCT, `mancala.ai.uct`).

A game that offers one names a module in its registry line (`Game.kernel`).
The module holds a namedtuple type, the *kernel*, with one search's constants (the root
position, the rules, for PUCT the network's weights as its forward pass reads them) and
three fields the driver reads itself: `edges` (the edge pool's room per node: the most
legal moves the tree keeps per node on average), `actions` (the most legal moves of a
position) and `stored` (the bytes of a position the tree keeps per node, so that a new
leaf is its parent's position and one move; 0 when positions are replayed from the root
along the path instead). It registers, with `numba.extending.overload`, an implementation of the
functions below its driver calls, for its kernel type; the driver calls them inside its
numba loop, so a game's code is compiled into the driver (once per game, and cached on
disk). In Python the module offers `kernel(state, weights=None, scale=1.0,
endgame=None, rollout=None, score_weight=0.0)`, the kernel of one search from `state`:
for PUCT with a network's `weights` (as `weights(arrays, state)` reads its float32
arrays, once per set of weights), its value `scale` in the game's units and its
`score_weight` (the sowing games' `margin_value`) and the solver's `endgame` database
where the game has one; for UCT with the playout policy `rollout`, one of the module's
`ROLLOUTS` (a game whose module has none is searched by the generic UCT).

A *state* is the game's mutable scratch of one search (the position replayed from the
root along a path, and the forward pass's buffers), the *mover* the player to move (0
or 1) as the rules say. An *exact* value is in the game's own units (a margin of seeds,
a result of -1, 0 or 1) from the view of a node's mover, UNKNOWN where not known.
"""

from __future__ import annotations

import math

UNKNOWN = math.inf  # a position's exact value is not known


def new_state(kernel):
    """A fresh state for one search of `kernel`."""
    raise NotImplementedError("registered for each kernel type with numba's overload")


def new_store(kernel, size):
    """The positions a tree of `size` nodes keeps (when `kernel.stored`)."""
    raise NotImplementedError


def save(kernel, store, node, state):
    """Keep the position of `state` as node `node`'s (when `kernel.stored`)."""
    raise NotImplementedError


def load(kernel, store, node, state):
    """Set `state` to node `node`'s kept position (when `kernel.stored`)."""
    raise NotImplementedError


def reset(kernel, state):
    """Copy the root position into `state`; the root's mover."""
    raise NotImplementedError


def legal(kernel, state, mover, moves):
    """The legal moves of `state` into `moves` in increasing order; how many."""
    raise NotImplementedError


def play(kernel, state, mover, move):
    """Play `move` on `state`; the mover after it."""
    raise NotImplementedError


def exact(kernel, state, mover):
    """The exact value of `state` for `mover` (a finished game, or a position the game
    knows exactly, as an endgame database holds it), else UNKNOWN."""
    raise NotImplementedError


def leaf_value(kernel, value):
    """An exact value as the network's value head would give it (in -1..1)."""
    raise NotImplementedError


def is_top(kernel, value):
    """Whether an exact value is the best a mover can have (a won game, where a win is
    all there is), so a node with such a move is exact without its other moves."""
    raise NotImplementedError


def rollout(kernel, state, mover):
    """A leaf's value for `mover` in -1..1 (a playout's result, or an evaluation), with
    numba's random numbers; `state` may be changed."""
    raise NotImplementedError


def evaluate(kernel, state, mover, moves, n, priors):
    """The network's value of `state` for `mover`; the priors of its `n` legal `moves`
    (summing to 1) into `priors[:n]`."""
    raise NotImplementedError


PROTOCOL = (
    new_state, new_store, save, load, reset, legal, play, exact, leaf_value, is_top, rollout,
    evaluate,
)  # fmt: skip


def register(kernel_type, namespace) -> None:
    """Register with numba, for `kernel_type`, the implementations in `namespace` (an
    adapter module's `globals()`) of the protocol functions: each is named as its
    function with a leading underscore (`_legal`), a numba-compilable function of the
    same parameters. A function without one is not offered."""
    import inspect

    from numba.extending import overload

    for stub in PROTOCOL:
        implementation = namespace.get("_" + stub.__name__)
        if implementation is None:
            continue

        def typer(*args, implementation=implementation):
            if getattr(args[0], "instance_class", None) is kernel_type:
                return implementation
            return None

        typer.__signature__ = inspect.signature(stub)  # numba checks the parameters
        overload(stub, inline="always")(typer)
