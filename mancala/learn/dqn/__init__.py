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

from mancala.learn.dqn.learners import Learner
from mancala.learn.dqn.measure import KEEP, match_stats
from mancala.learn.dqn.model import PAPER_HIDDEN, build_model
from mancala.learn.dqn.run import train

__all__ = ["KEEP", "PAPER_HIDDEN", "Learner", "build_model", "match_stats", "train"]
