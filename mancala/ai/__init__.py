"""The players of the lab, made by name: `make_player("minimax:8")`."""

from mancala.ai.base import Player
from mancala.ai.registry import (
    available_players,
    describe_player,
    describe_players,
    make_player,
    register,
)

__all__ = [
    "Player",
    "available_players",
    "describe_player",
    "describe_players",
    "make_player",
    "register",
]
