"""The players of a learning run: zoo networks (each from its run's candidate, the shipped
weights or fresh) and registry players."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from mancala.games import DEFAULT_GAME
from mancala.learn.runs import Run
from mancala.nn_lib.base import weights_path
from mancala.nn_lib.boards import board_name


def make_pool(
    specs: list[str],
    models: Path | None,
    seed: int,
    run: Run | None = None,
    game: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
) -> tuple[dict, dict]:
    """(networks by name, players by spec): zoo names become networks of a board of `game`
    (its default unless `options` say otherwise), `az-net` its policy-value network (a
    network the run refits, not a player at its table), the rest registry players. A
    network starts from the run's candidate when it has one, else from the weights in
    `models`, else fresh; which, is said, and a damaged file is reported and passed over.
    With a `run`, it saves there."""
    from mancala.ai.registry import make_player
    from mancala.learn.learner import PolicyValueLearner, player_of
    from mancala.nn_lib.policy_value import NAME, PolicyValue, weights_file
    from mancala.nn_lib.zoo import ZOO, network

    nets, players = {}, {}
    for i, spec in enumerate(specs):
        if spec in ZOO:
            sources = [run.candidate(spec)] if run is not None else []
            sources += [weights_path(spec, board_name(game, options), models)] if models else []
            made = partial(network, spec, game=game, options=options)
            net = _first_whole(spec, sources, seed + i, made)
            if run is not None:
                net.path = run.candidate(spec)
            nets[spec] = net
            players[spec] = player_of(net, seed + i)
        elif spec == NAME:
            folders = [run.candidates] if run is not None else []
            folders += [models] if models else []
            sources = [weights_file(game, folder, options) for folder in folders]
            made = _first_whole(spec, sources, seed + i, lambda p: PolicyValue(game, p, options))
            if run is not None:
                made.path = weights_file(game, run.candidates, options)
            nets[spec] = PolicyValueLearner(made)
        else:
            players[spec] = make_player(spec, seed=seed + i)
    return nets, players


def _first_whole(spec: str, paths: list[Path], seed: int, make: Callable[[Path | None], Any]):
    """Network `spec` (`make(path)`, not yet read) with the weights of the first whole
    file of `paths`, else fresh."""
    from mancala.nn_lib.base import WeightsError

    for path in paths:
        if not path.is_file():
            continue
        try:
            net = make(path).load()
        except WeightsError as error:
            print(f"{spec}: not using {path}, it is damaged: {error}", flush=True)
            continue
        print(f"{spec}: weights from {path}")
        return net
    print(f"{spec}: fresh weights")
    return make(paths[-1] if paths else None).fresh(seed)
