"""The Sungka paper's DQN ("Mastering the Game of Sungka from Random Play"), trained
(`python mancala/dqn_train.py`) and measured (`python mancala/dqn_eval.py`).

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
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from mancala.ai.base import Player
from mancala.ai.dqn import SEATS, DQNPlayer, encode, weights_path
from mancala.arena.match import play_games
from mancala.arena.openings import random_opening
from mancala.arena.results import Tally
from mancala.core.atomic import write_json
from mancala.game_state import GameState
from mancala.games.masks import legal_mask
from mancala.nn_lib.base import import_keras, masked_argmax, save_keras

EVAL_OPPONENTS = ("luck", "max", "exact")
KEEP = {  # which evaluation's weights are saved: the one scoring highest by...
    "best": lambda wins: float(np.mean(wins)),  # the mean win rate
    "worst": lambda wins: float(min(wins)),  # the lowest win rate of the three
    "last": lambda wins: float(np.mean(wins)),  # (any: each replaces the one before)
}


def build_model(houses: int, hidden: tuple[int, ...] = (128, 256)):
    """The Q-network: 2*houses inputs, dense relu layers, one linear Q-value a house."""
    keras = import_keras()

    layers = [keras.Input((2 * houses,))]
    layers += [keras.layers.Dense(n, activation="relu") for n in hidden]
    layers.append(keras.layers.Dense(houses))
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
    """A ring buffer of (state, action, reward, next state, its legal moves, done)."""

    def __init__(self, size: int, inputs: int, actions: int) -> None:
        self.s = np.zeros((size, inputs), np.float32)
        self.s2 = np.zeros((size, inputs), np.float32)
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
    log=print,
) -> dict[str, Any]:
    """Train one net; save weights, curve PNG and JSON; a summary dict. With `openings`,
    each episode starts after 0..`openings` random moves (drawn per episode), and every
    evaluation also plays luck from random openings of `openings` moves."""
    if min(episodes, eval_every, eval_games, train_every, batch, target_every, replay_size) < 1:
        raise ValueError(
            "episodes, eval_every, eval_games, train_every, batch, target_every and "
            "replay_size must be at least 1"
        )
    if not 0 < learning_rate < 1:
        raise ValueError(f"the learning rate must be between 0 and 1, not {learning_rate}")
    if openings < 0:
        raise ValueError(f"openings must be a number of moves >= 0, not {openings}")
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
    out = Path(out) if out else weights_path(variant, seat)
    if out.suffix != ".keras":
        raise ValueError(f"the output must be a .keras file, not {out}")
    keras = import_keras()  # one TensorFlow thread: the machine is shared

    from mancala.learn.envs import MancalaEnv
    from mancala.nn_lib.numpy_forward import NumpyForward

    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    env = MancalaEnv(variant, opponent=opponents[0], seat=seat)
    houses, scale = env.start.houses, float(env.start.seeds)
    model = build_model(houses)
    trainer = build_trainer(model, learning_rate)
    act, target = NumpyForward(model), NumpyForward(model)
    replay = Replay(replay_size, 2 * houses, houses)
    eye = np.eye(houses, dtype=np.float32)
    curve: list[dict] = []
    best, best_weights = -1.0, model.get_weights()
    steps = trains = 0
    losses: list[float] = []
    began = time.perf_counter()
    title = f"DQN {variant}, {SEATS[seat]} player, trained against {', '.join(opponents)}"
    opened = f"luck from {openings}-move openings"
    measured = (*EVAL_OPPONENTS, opened) if openings else EVAL_OPPONENTS
    for episode in range(1, episodes + 1):
        opponent = opponents[rng.integers(len(opponents))]
        plies = int(rng.integers(openings + 1))
        env.reset(seed=int(rng.integers(2**31)), options={"opponent": opponent, "opening": plies})
        act = NumpyForward(model)  # acting weights: refreshed once an episode
        done = False
        s = encode([env.state])[0]
        while not done:
            mask = legal_mask([env.state])[0]
            if rng.random() < epsilon:
                action = int(rng.choice(np.flatnonzero(mask)))
            else:
                action = int(masked_argmax(act(s[None]), mask[None])[0])
            _, reward, done, _, _ = env.step(action)
            s2 = encode([env.state])[0] if not done else np.zeros_like(s)
            legal2 = legal_mask([env.state])[0] if not done else np.zeros(houses, bool)
            replay.add(s, action, reward / scale, s2, legal2, done)
            s = s2
            steps += 1
            if len(replay) >= batch and steps % train_every == 0:
                idx = rng.integers(len(replay), size=batch)
                q2 = np.where(replay.legal2[idx], target(replay.s2[idx]), -np.inf).max(axis=1)
                y = replay.r[idx] + gamma * np.where(replay.done[idx], 0.0, q2)
                loss = trainer.train_on_batch([replay.s[idx], eye[replay.a[idx]]], y[:, None])
                losses.append(float(loss))
                trains += 1
                if trains % target_every == 0:
                    target = NumpyForward(model)
        if episode % eval_every == 0 or episode == episodes:
            point = {"episode": episode, "seconds": round(time.perf_counter() - began, 1)}
            act = NumpyForward(model)  # the weights evaluated are the weights saved
            for k, name in enumerate(EVAL_OPPONENTS):
                point[name] = evaluate(act, variant, seat, name, eval_games, seed + 7919 * k)
            if openings:
                point[opened] = evaluate(
                    act, variant, seat, "luck", eval_games, seed + 104729, opening=openings
                )
            curve.append(point)
            score = KEEP[keep]([point[name]["win"] for name in measured])
            if keep == "last" or score >= best:
                best, best_weights = score, model.get_weights()
                save_keras(model, out)
            elapsed = time.perf_counter() - began
            log(
                f"episode {episode}/{episodes}  {elapsed:.0f} s  {steps} moves  "
                f"{trains} train steps  loss {np.mean(losses[-1000:]) if losses else 0:.4f}  "
                + "  ".join(
                    f"{n}: win {point[n]['win']:.0f}% score {point[n]['score']:.1f}"
                    for n in measured
                )
            )
            write_json(out.with_suffix(".json"), {"title": title, "curve": curve})
            plot_curve(curve, out.with_suffix(".png"), title)
    model.set_weights(best_weights)
    save_keras(model, out)
    seconds = time.perf_counter() - began
    summary = {
        "variant": variant,
        "seat": SEATS[seat],
        "episodes": episodes,
        "opponents": list(opponents),
        "openings": openings,
        "seed": seed,
        "seconds": round(seconds, 1),
        "moves": steps,
        "train_steps": trains,
        "kept": keep,
        "best_win": best,
        "weights": out.name,
    }
    write_json(out.with_suffix(".json"), {"title": title, "summary": summary, "curve": curve})
    log(f"saved {out} ({keep} evaluation, {keep} win {best:.1f}%) after {seconds:.0f} s")
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
