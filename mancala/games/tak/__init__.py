"""Tak (US Tak Association rules, PTN and TPS notation): the rules in `state`, the action
encoding in `actions`, the notations in `notation`, the terminal drawing in `drawing`, a
numba engine in `fast` and move-path counting (perft) in `perft`."""

from mancala.game_state import IllegalMove
from mancala.games.tak.state import Outcome, TakState, from_tps, new_tak, state_from_dict

__all__ = ["IllegalMove", "Outcome", "TakState", "from_tps", "new_tak", "state_from_dict"]
