"""The ASCII drawing of a board: the opponent's row on top, stores at the ends (named).

Houses are labelled a, b, c... (and 1, 2, 3...) in each side's sowing order, so a
person can name a house either way. Letters stop at p, so that q always means quit;
a house past the sixteenth is labelled by its number. `bottom` is the player drawn
nearest the reader.

>>> from mancala.game_state import GameState
>>> print(draw_board(GameState.new(houses=3, seeds=2).play(0)))
        c    b    a           player 1 (to move)
   +----+----+----+----+----+
   |    |  2 |  2 |  2 |    |
   |  0 +----+----+----+  0 |   stores: player 1 left, player 0 right
   |    |  0 |  3 |  3 |    |
   +----+----+----+----+----+
        a    b    c           player 0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mancala.game_state import GameState


LETTERS = "abcdefghijklmnop"  # house letters; q is never one (it quits)


def display(state: GameState) -> dict:
    """What a board display shows beside the protocol: the stores' seeds (`scores`)."""
    return {"scores": list(state.scores())}


def house_label(house: int) -> str:
    """The label of house number `house`: its letter (0 -> 'a'), past p its number.

    >>> house_label(0), house_label(15), house_label(16)
    ('a', 'p', '17')
    """
    return LETTERS[house] if house < len(LETTERS) else str(house + 1)


def house_choices(houses: int) -> str:
    """How to name the houses of a side of `houses`: 'a..f or 1..6'.

    >>> house_choices(6), house_choices(20)
    ('a..f or 1..6', 'a..p or 1..20')
    """
    return f"a..{house_label(min(houses, len(LETTERS)) - 1)} or 1..{houses}"


def draw_board(state: GameState, bottom: int = 0, names: tuple[str, str] | None = None) -> str:
    """The board as text, with `bottom`'s houses along the bottom edge left to right."""
    top = 1 - bottom
    names = names or ("player 0", "player 1")
    top_row = list(reversed(state.side(top)))
    bottom_row = list(state.side(bottom))
    h = state.houses

    def title(player: int) -> str:
        if state.is_over():
            return names[player]
        return names[player] + (" (to move)" if state.player == player else "")

    def cells(values: list[int]) -> str:
        return "|".join(f"{v:>3} " for v in values)

    rule = "   +" + "+".join(["----"] * (h + 2)) + "+"
    labels_top = "     " + "".join(f"{house_label(i):>4} " for i in reversed(range(h)))
    labels_bottom = "     " + "".join(f"{house_label(i):>4} " for i in range(h))
    middle = "+".join(["----"] * h)
    blank = "    "
    lines = [
        f"{labels_top}          {title(top)}",
        rule,
        f"   |{blank}|{cells(top_row)}|{blank}|",
        f"   |{state.board[state.store(top)]:>3} +{middle}+{state.board[state.store(bottom)]:>3} |"
        f"   stores: {names[top]} left, {names[bottom]} right",
        f"   |{blank}|{cells(bottom_row)}|{blank}|",
        rule,
        f"{labels_bottom}          {title(bottom)}",
    ]
    return "\n".join(line.rstrip() for line in lines)
