"""The Sungka paper's DQN ("Mastering the Game of Sungka from Random Play"), trained
(`mancala dqn`) and measured (`mancala measure dqn`).

The paper's setup, in Keras 3: a dense net 2H -> 128 -> 256 -> H (Sungka: 14 -> 7,
Kalah(6,4): 12 -> 6) over the houses seen from the mover's side; experience replay of
2,000 moves, batches of 128, one train step per agent move, a target network, a fixed
epsilon of 0.05; the reward of a move is the agent's gain minus the opponent's gain
until the agent moves again (mancala.learn.envs.MancalaEnv); 10,000 episodes against `luck`.
Choices the paper leaves open, made here: illegal moves are masked (the argmax and the
target's max run over legal moves only, exploration picks a legal move), rewards are
divided by the seeds a house starts with, discount 0.99, Huber loss, Adam 5e-4, target
synced every 500 train steps; the numpy copy of the net that picks moves is refreshed at
the start of each episode (a copy costs about as much as a train step). Every
`--eval-every` episodes the net (epsilon 0.01) plays `--eval-games` games against luck,
max and exact: a progress line, and the learning curve (mean score and win rate, as the
paper's figures 3 and 5) goes to a PNG and JSON beside the weights. The weights saved
are those of the evaluation with the highest mean win rate (`--keep worst`: the highest
lowest win rate of the three; `--keep last`: the final).

Beyond the paper, `encoder` and `hidden` change the net: the zoo's one-hot counts and
stores as input, or an afterstate net (`AfterstateLearner`) whose one output values the
board after a move (seen alone, or with each side's next-move gains beside it).
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.base import Player
from mancala.ai.dqn import (
    AFTERSTATE_FORMS,
    ENCODERS,
    FORMS,
    SEATS,
    DQNPlayer,
    afterstate_encoders,
    afterstate_q,
    weights_path,
)
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.arena.results import Tally
from mancala.core.atomic import write_json
from mancala.game_state import GameState
from mancala.games.masks import legal_mask
from mancala.games.sowing.afterstates import afterstates
from mancala.games.sowing.engine import rules_of
from mancala.games.sowing.view import mover_views
from mancala.nn_lib.choice import masked_argmax
from mancala.nn_lib.keras_io import import_keras, save_keras

EVAL_OPPONENTS = ("luck", "max", "exact")
PAPER_HIDDEN = (128, 256)
KEEP = {  # which evaluation's weights are saved: the one scoring highest by...
    "best": lambda wins: float(np.mean(wins)),  # the mean win rate
    "worst": lambda wins: float(min(wins)),  # the lowest win rate of the three
    "last": lambda wins: float(np.mean(wins)),  # (any: each replaces the one before)
}


def build_model(
    houses: int,
    hidden: tuple[int, ...] = PAPER_HIDDEN,
    inputs: int | None = None,
    outputs: int | None = None,
):
    """The Q-network: `inputs` (default the paper's 2*houses), dense relu layers,
    `outputs` linear values (default one Q-value a house)."""
    keras = import_keras()

    layers = [keras.Input((inputs or 2 * houses,))]
    layers += [keras.layers.Dense(n, activation="relu") for n in hidden]
    layers.append(keras.layers.Dense(outputs or houses))
    return keras.Sequential(layers, name="dqn")


def build_trainer(model, learning_rate: float):
    """A model sharing `model`'s layers whose output is Q(s, a) of the one-hot action a."""
    keras = import_keras()

    state = keras.Input(model.input_shape[1:])
    action = keras.Input((model.output_shape[-1],))
    chosen = keras.layers.Dot(axes=1)([model(state), action])
    trainer = keras.Model([state, action], chosen)
    trainer.compile(keras.optimizers.Adam(learning_rate), loss=keras.losses.Huber())
    return trainer


class Replay:
    """A ring buffer of (state, action, reward, next state, its legal moves, done); the
    next state may be stored in another width (`next_inputs`) than the state."""

    def __init__(self, size: int, inputs: int, actions: int, next_inputs: int | None = None):
        self.s = np.zeros((size, inputs), np.float32)
        self.s2 = np.zeros((size, next_inputs or inputs), np.float32)
        self.a = np.zeros(size, np.int64)
        self.r = np.zeros(size, np.float32)
        self.legal2 = np.zeros((size, actions), bool)
        self.done = np.zeros(size, bool)
        self.size, self.count = size, 0

    def add(self, s, a, r, s2, legal2, done) -> None:
        i = self.count % self.size
        self.s[i], self.a[i], self.r[i], self.s2[i] = s, a, r, s2
        self.legal2[i], self.done[i] = legal2, done
        self.count += 1

    def __len__(self) -> int:
        return min(self.count, self.size)


def evaluate(
    forward, variant: str, seat: int, opponent: str, games: int, seed: int, opening: int = 0
) -> dict:
    """The net (epsilon 0.01) in `seat` against `opponent`, from the start or from random
    openings of `opening` moves: mean score, reward and win %."""
    from mancala.ai.registry import make_player

    me = DQNPlayer(seed=seed, epsilon=0.01, forwards={(variant, seat): forward})
    other = make_player(opponent, seed=seed + 1)
    return match_stats(me, other, seat, GameState.new(variant), games, seed, opening=opening)


def plot_curve(curve: list[dict], path: Path, title: str) -> None:
    """Mean score and win % against each evaluation opponent, by episode (PNG)."""
    from mancala.arena.plots import save_figure, subplots

    episodes = [point["episode"] for point in curve]
    figure, (left, right) = subplots(1, 2, figsize=(11, 4))
    for opponent in [key for key, value in curve[0].items() if isinstance(value, dict)]:
        label = opponent.replace("luck", "random")
        left.plot(episodes, [p[opponent]["score"] for p in curve], label=label)
        right.plot(episodes, [p[opponent]["win"] for p in curve], label=label)
    left.set(xlabel="episode", ylabel="mean score (shells in own store)", title="mean score")
    right.set(xlabel="episode", ylabel="win %", title="win rate", ylim=(-2, 102))
    for axes in (left, right):
        axes.grid(alpha=0.3)
        axes.legend()
    figure.suptitle(title)
    save_figure(figure, path)


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


def opened_name(openings: int) -> str:
    """The curve's name of the evaluation against luck from random openings."""
    return f"luck from {openings}-move openings"


def measured_names(openings: int) -> tuple[str, ...]:
    """The evaluations whose win rates choose the weights kept."""
    return (*EVAL_OPPONENTS, opened_name(openings)) if openings else EVAL_OPPONENTS


def train(
    variant: str = "sungka",
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


def match_stats(
    me: Player,
    other: Player,
    seat: int,
    start: GameState,
    games: int,
    seed: int,
    on_game=None,
    opening: int = 0,
) -> dict[str, float]:
    """`me` in `seat` against `other`, `games` games from `start` (after `opening` random
    moves, a new opening each game): mean score, mean reward (score difference) and win /
    draw %."""
    seated = [me, other] if seat == 0 else [other, me]
    rng = random.Random(seed)
    starts = [random_opening(start, opening, rng)[0] for _ in range(games)]
    records = play_games(seated, starts, seed=seed, on_game=on_game)
    scores = np.array([r["scores"] for r in records])
    tally = Tally().add_records(records, seat)
    return {
        "score": float(scores[:, seat].mean()),
        "reward": float((scores[:, seat] - scores[:, 1 - seat]).mean()),
        "win": tally.win_percent(),
        "draw": tally.percent("draws"),
    }
