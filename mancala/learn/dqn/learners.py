"""The DQN's learners: one training run's state, a method a step (`Learner`: Q(s, a) a
house; `AfterstateLearner`: one value of the board after a move)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.dqn import ENCODERS, FORMS, afterstate_encoders, afterstate_q
from mancala.core.atomic import write_json
from mancala.games.masks import legal_mask
from mancala.games.sowing.afterstates import afterstates
from mancala.games.sowing.engine import rules_of
from mancala.games.sowing.view import mover_views
from mancala.learn.dqn.measure import (
    EVAL_OPPONENTS,
    KEEP,
    evaluate,
    measured_names,
    opened_name,
    plot_curve,
)
from mancala.learn.dqn.model import PAPER_HIDDEN, Replay, build_model, build_trainer
from mancala.nn_lib.choice import masked_argmax
from mancala.nn_lib.keras_io import import_keras, save_keras


@dataclass(frozen=True)
class Settings:
    """The knobs of one training run (see `train`)."""

    variant: str
    seat: int
    opponents: tuple[str, ...]
    seed: int
    episodes: int
    eval_every: int
    eval_games: int
    replay_size: int
    batch: int
    epsilon: float
    gamma: float
    learning_rate: float
    target_every: int
    train_every: int
    keep: str
    openings: int
    encoder: str = "houses"
    hidden: tuple[int, ...] = PAPER_HIDDEN
    init: Path | None = None
    double: bool = False

    def check(self) -> None:
        """ValueError unless the settings make sense."""
        counts = (self.episodes, self.eval_every, self.eval_games, self.train_every)
        if min(*counts, self.batch, self.target_every, self.replay_size) < 1:
            raise ValueError(
                "episodes, eval_every, eval_games, train_every, batch, target_every and "
                "replay_size must be at least 1"
            )
        if not 0 < self.learning_rate < 1:
            raise ValueError(f"the learning rate must be between 0 and 1, not {self.learning_rate}")
        if self.openings < 0:
            raise ValueError(f"openings must be a number of moves >= 0, not {self.openings}")
        if self.encoder not in FORMS:
            raise ValueError(f"encoder must be one of {', '.join(FORMS)}, not {self.encoder!r}")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden layers must have at least 1 unit each, not {self.hidden}")
        if self.keep not in KEEP:
            raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {self.keep!r}")


class Learner:
    """One training run's state: the net, its trainer, the acting and target copies, the
    replay buffer, the counts and the learning curve; one method a step of `train`."""

    def __init__(self, env, rng, settings: Settings, out: Path, log) -> None:
        self.env, self.rng, self.settings, self.out, self.log = env, rng, settings, out, log
        houses = env.start.houses
        self.houses, self.scale = houses, float(env.start.seeds)
        self.model, self.trainer, self.replay = self._build()
        if settings.init:
            self._load_init(settings.init)
        self.act, self.target = self._forward(), self._forward()
        self.eye = np.eye(houses, dtype=np.float32)
        self.curve: list[dict] = []
        self.best, self.best_weights = -1.0, self.model.get_weights()
        self.steps = self.trains = 0
        self.losses: list[float] = []
        self.began = time.perf_counter()

    def _build(self) -> tuple[Any, Any, Replay]:
        """(the Q-net, the model that trains it, the replay buffer)."""
        self.encode = ENCODERS[self.settings.encoder]
        inputs = self.encode([self.env.start]).shape[1]
        model = build_model(self.houses, self.settings.hidden, inputs)
        trainer = build_trainer(model, self.settings.learning_rate)
        return model, trainer, Replay(self.settings.replay_size, inputs, self.houses)

    def _load_init(self, path: Path) -> None:
        """Start from the weights of the .keras file `path`; ValueError unless it holds a
        net of this run's form."""
        from mancala.nn_lib.saved import read_model

        weights = read_model(
            path, "the initial weights", "give a .keras file of a DQN"
        ).get_weights()
        shapes = [w.shape for w in self.model.get_weights()]
        if [w.shape for w in weights] != shapes:
            raise ValueError(
                f"{path} is not a net of this run's form ({self.settings.encoder}, hidden "
                f"{','.join(map(str, self.settings.hidden))}): its layers do not match"
            )
        self.model.set_weights(weights)

    def _forward(self):
        from mancala.nn_lib.numpy_forward import NumpyForward

        return NumpyForward(self.model)

    def _start_episode(self) -> None:
        """Reset the environment: a drawn opponent, a drawn opening; fresh acting weights."""
        rng, env, opponents = self.rng, self.env, self.settings.opponents
        opponent = opponents[rng.integers(len(opponents))]
        plies = int(rng.integers(self.settings.openings + 1))
        env.reset(seed=int(rng.integers(2**31)), options={"opponent": opponent, "opening": plies})
        self.act = self._forward()  # acting weights: refreshed once an episode

    def _after_step(self) -> None:
        """Count the move; a train step every `train_every` moves once a batch is stored."""
        self.steps += 1
        if len(self.replay) >= self.settings.batch and self.steps % self.settings.train_every == 0:
            self.train_step()

    def play_episode(self) -> None:
        """One episode against a drawn opponent from a drawn opening, learning as it goes."""
        env = self.env
        self._start_episode()
        done = False
        s = self.encode([env.state])[0]
        while not done:
            action = self._choose(s, legal_mask([env.state])[0])
            _, reward, done, _, _ = env.step(action)
            s2 = self.encode([env.state])[0] if not done else np.zeros_like(s)
            legal2 = legal_mask([env.state])[0] if not done else np.zeros(self.houses, bool)
            self.replay.add(s, action, reward / self.scale, s2, legal2, done)
            s = s2
            self._after_step()

    def _choose(self, s: np.ndarray, mask: np.ndarray) -> int:
        """Epsilon-greedy over the legal moves of the encoded state `s`."""
        return self._choose_q(self.act(s[None])[0], mask)

    def _choose_q(self, q: np.ndarray, mask: np.ndarray) -> int:
        """Epsilon-greedy over the legal moves, by their Q-values `q`."""
        if self.rng.random() < self.settings.epsilon:
            return int(self.rng.choice(np.flatnonzero(mask)))
        return int(masked_argmax(q[None], mask[None])[0])

    def train_step(self) -> None:
        """One batch from the replay buffer against the target net; the target synced
        every `target_every` steps."""
        replay, settings = self.replay, self.settings
        idx = self.rng.integers(len(replay), size=settings.batch)
        s2, legal2 = replay.s2[idx], replay.legal2[idx]
        q2 = self._next_value(self.target(s2), lambda: self.act(s2), legal2)
        y = replay.r[idx] + settings.gamma * np.where(replay.done[idx], 0.0, q2)
        loss = self.trainer.train_on_batch([replay.s[idx], self.eye[replay.a[idx]]], y[:, None])
        self.losses.append(float(loss))
        self.trains += 1
        if self.trains % settings.target_every == 0:
            self.target = self._forward()

    def _next_value(self, target_q: np.ndarray, online_q, legal: np.ndarray) -> np.ndarray:
        """The value of each next position for the target: the target net's best legal
        Q, or with `double` (Double DQN) the target net's Q of the move the acting net
        (`online_q()`) likes best."""
        if not self.settings.double:
            return np.where(legal, target_q, -np.inf).max(axis=1)
        chosen = masked_argmax(online_q(), legal)
        return target_q[np.arange(len(chosen)), chosen]

    def evaluation_point(self, episode: int, title: str) -> None:
        """Measure the net, keep its weights if they score best, log a line and write the
        curve (JSON and PNG)."""
        settings = self.settings
        variant, seat, seed = settings.variant, settings.seat, settings.seed
        games, openings, keep = settings.eval_games, settings.openings, settings.keep
        point = {"episode": episode, "seconds": round(time.perf_counter() - self.began, 1)}
        self.act = self._forward()  # the weights evaluated are the weights saved
        for k, name in enumerate(EVAL_OPPONENTS):
            point[name] = evaluate(self.act, variant, seat, name, games, seed + 7919 * k)
        if openings:
            point[opened_name(openings)] = evaluate(
                self.act, variant, seat, "luck", games, seed + 104729, opening=openings
            )
        self.curve.append(point)
        measured = measured_names(openings)
        score = KEEP[keep]([point[name]["win"] for name in measured])
        if keep == "last" or score >= self.best:
            self.best, self.best_weights = score, self.model.get_weights()
            save_keras(self.model, self.out)
        self.log(self._progress_line(point, episode, measured))
        write_json(self.out.with_suffix(".json"), {"title": title, "curve": self.curve})
        plot_curve(self.curve, self.out.with_suffix(".png"), title)

    def _progress_line(self, point: dict, episode: int, measured: tuple[str, ...]) -> str:
        elapsed = time.perf_counter() - self.began
        loss = np.mean(self.losses[-1000:]) if self.losses else 0
        return (
            f"episode {episode}/{self.settings.episodes}  {elapsed:.0f} s  {self.steps} moves  "
            f"{self.trains} train steps  loss {loss:.4f}  "
            + "  ".join(
                f"{n}: win {point[n]['win']:.0f}% score {point[n]['score']:.1f}" for n in measured
            )
        )


class AfterstateLearner(Learner):
    """The DQN with an afterstate Q-function: the net has one output, the value of the
    board after a move for the player to move then, and Q(s, a) is what move a gains plus
    (or, when the opponent moves next, minus) that value (`mancala.ai.dqn.afterstate_q`).
    A move that ends the game has its exact Q and is not stored. The board after the
    agent's move learns the rest of the step's reward (the opponent's replies) and the
    discounted best Q of the agent's next position, from the side of the player to move
    on it: Q-learning's target, with the same replay, target net and exploration."""

    def _build(self) -> tuple[Any, Any, Replay]:
        keras = import_keras()

        self.rules = rules_of(self.env.start)
        self.encode_after = afterstate_encoders(self.settings.variant)[self.settings.encoder]
        inputs = self.encode_after(mover_views([self.env.start])).shape[1]
        model = build_model(self.houses, self.settings.hidden, inputs, outputs=1)
        optimizer = keras.optimizers.Adam(self.settings.learning_rate)
        model.compile(optimizer, loss=keras.losses.Huber())
        boards = 2 * self.houses + 2  # the next position: its board from the mover's side
        return model, model, Replay(self.settings.replay_size, inputs, self.houses, boards)

    def play_episode(self) -> None:
        env, variant = self.env, self.settings.variant
        self._start_episode()
        done = False
        while not done:
            rel, mask = mover_views([env.state]), legal_mask([env.state])
            after, gained, same, live = afterstates(rel, mask, self.rules)
            action = self._choose_q(afterstate_q(self.act, variant, rel, mask)[0], mask[0])
            _, reward, done, _, _ = env.step(action)
            if live[0, action]:  # the rest of the step after the move, then the agent's turn
                rest = (reward - gained[0, action]) / self.scale
                rel2 = mover_views([env.state])[0] if not done else np.zeros(rel.shape[1])
                legal2 = legal_mask([env.state])[0] if not done else np.zeros(self.houses, bool)
                sign = 1 if same[0, action] else -1  # held in the replay's action field
                self.replay.add(
                    self.encode_after(after[0, action][None])[0], sign, rest, rel2, legal2, done
                )
            self._after_step()

    def train_step(self) -> None:
        replay, settings = self.replay, self.settings
        idx = self.rng.integers(len(replay), size=settings.batch)
        legal2, boards = replay.legal2[idx], replay.s2[idx].astype(np.int64)
        q2 = afterstate_q(self.target, settings.variant, boards, legal2)
        best = self._next_value(
            q2, lambda: afterstate_q(self.act, settings.variant, boards, legal2), legal2
        )
        rest = replay.r[idx] + settings.gamma * np.where(replay.done[idx], 0.0, best)
        y = replay.a[idx] * rest  # the value for the player to move after the agent's move
        loss = self.trainer.train_on_batch(replay.s[idx], y[:, None].astype(np.float32))
        self.losses.append(float(loss))
        self.trains += 1
        if self.trains % settings.target_every == 0:
            self.target = self._forward()
