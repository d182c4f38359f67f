"""One DQN training run (`mancala dqn`): the settings checked, the learner made, its
episodes played with an evaluation every so often, the best weights saved."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.dqn import AFTERSTATE_FORMS, SEATS, weights_path
from mancala.core.atomic import write_json
from mancala.game_state import SUNGKA
from mancala.learn.dqn.learners import AfterstateLearner, Learner, Settings
from mancala.learn.dqn.model import PAPER_HIDDEN
from mancala.nn_lib.keras_io import import_keras, save_keras


def train(
    variant: str = SUNGKA,
    seat: int = 0,
    episodes: int = 10_000,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    opponents: tuple[str, ...] = ("luck",),
    eval_every: int = 100,
    eval_games: int = 50,
    replay_size: int = 2000,
    batch: int = 128,
    epsilon: float = 0.05,
    gamma: float = 0.99,
    learning_rate: float = 5e-4,
    target_every: int = 500,
    train_every: int = 1,
    keep: str = "best",
    openings: int = 0,
    encoder: str = "houses",
    hidden: tuple[int, ...] = PAPER_HIDDEN,
    init: str | os.PathLike | None = None,
    double: bool = False,
    log=print,
) -> dict[str, Any]:
    """Train one net; save weights, curve PNG and JSON; a summary dict. With `openings`,
    each episode starts after 0..`openings` random moves (drawn per episode), and every
    evaluation also plays luck from random openings of `openings` moves. `encoder` and
    `hidden` choose the net's input (the paper's houses, or the zoo's one-hot counts and
    stores) and its hidden layers. With `init`, the net starts from the weights of that
    .keras file (of the same form), measured first at episode 0, so the weights kept are
    never those of an evaluation scoring below them. `double` uses Double DQN's target."""
    settings = Settings(
        variant, seat, tuple(opponents), seed, episodes, eval_every, eval_games, replay_size,
        batch, epsilon, gamma, learning_rate, target_every, train_every, keep, openings,
        encoder, tuple(hidden), Path(init) if init else None, double,
    )  # fmt: skip
    settings.check()
    out = Path(out) if out else weights_path(variant, seat)
    if out.suffix != ".keras":
        raise ValueError(f"the output must be a .keras file, not {out}")
    keras = import_keras()  # one TensorFlow thread: the machine is shared

    from mancala.learn.envs import MancalaEnv

    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    env = MancalaEnv(variant, opponent=opponents[0], seat=seat)
    learner = (AfterstateLearner if encoder in AFTERSTATE_FORMS else Learner)(
        env, rng, settings, out, log
    )
    title = f"DQN {variant}, {SEATS[seat]} player, trained against {', '.join(opponents)}"
    if init:
        learner.evaluation_point(0, title)
    for episode in range(1, episodes + 1):
        learner.play_episode()
        if episode % eval_every == 0 or episode == episodes:
            learner.evaluation_point(episode, title)
    learner.model.set_weights(learner.best_weights)
    save_keras(learner.model, out)
    seconds = time.perf_counter() - learner.began
    summary = {
        "variant": variant,
        "seat": SEATS[seat],
        "episodes": episodes,
        "opponents": list(opponents),
        "openings": openings,
        "encoder": encoder,
        "hidden": list(hidden),
        "seed": seed,
        "init": str(init) if init else None,
        "double": double,
        "seconds": round(seconds, 1),
        "moves": learner.steps,
        "train_steps": learner.trains,
        "kept": keep,
        "best_win": learner.best,
        "weights": out.name,
    }
    curve = learner.curve
    write_json(out.with_suffix(".json"), {"title": title, "summary": summary, "curve": curve})
    log(f"saved {out} ({keep} evaluation, {keep} win {learner.best:.1f}%) after {seconds:.0f} s")
    return summary
