"""Tak (US Tak Association rules, PTN and TPS notation): rules, notation, engine, search."""

from mancala.game_state import IllegalMove
from mancala.games.tak.state import Outcome, TakState, from_tps, new_tak, state_from_dict

__all__ = ["IllegalMove", "Outcome", "TakState", "from_tps", "new_tak", "state_from_dict"]
