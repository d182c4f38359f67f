"""Play any player of the lab in the terminal.

    python mancala/play.py greedy               # you move first
    python mancala/play.py minimax --second     # the computer moves first
    python mancala/play.py exact --variant sungka

Type a house letter (a, b, c...) or number (1, 2, 3...) counted from your leftmost
house; `q` quits. Your houses are the bottom row.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mancala.ai.human import Human, Quit
from mancala.ai.registry import make_player
from mancala.board_art import draw_board, house_label
from mancala.game_state import GameState
from mancala.games.sowing import trace_move


def play_terminal(
    opponent_spec: str,
    start: GameState,
    human_seat: int = 0,
    seed: int | None = None,
    ask: Callable[[str], str] = input,
    tell: Callable[[str], None] = print,
) -> GameState:
    """Play a game between a person (`ask`/`tell`) and `opponent_spec`; the last position.

    Raises Quit when the person quits (q, or the end of input).
    """
    computer = make_player(opponent_spec, seed=seed)
    human = Human(ask=ask, tell=tell)
    names = ["you", opponent_spec] if human_seat == 0 else [opponent_spec, "you"]
    last = start.houses - 1
    tell(
        f"You are the bottom row. Type a house letter (a..{house_label(last)}) "
        f"or number (1..{last + 1}); q quits."
    )
    state = start
    tell(draw_board(state, bottom=human_seat, names=tuple(names)))
    while not state.is_over():
        mine = state.player == human_seat
        move = human.choose_move(state) if mine else computer.choose_move(state)
        after, _, events = trace_move(state, move)
        said = "".join(f", {words}" for words in events.words())
        if mine:
            tell(f"You play {house_label(move)}{said}.")
        else:
            tell(f"{opponent_spec} plays {house_label(move)} ({move + 1}){said}.")
        state = after
        tell(draw_board(state, bottom=human_seat, names=tuple(names)))
        if events.extra_turn or events.passes:
            tell("You move again." if mine else "It moves again.")
    return state


def result_line(state: GameState, human_seat: int) -> str:
    """'You win 30 to 18.' and the like, from the person's seat."""
    mine, theirs = state.scores()[human_seat], state.scores()[1 - human_seat]
    winner = state.winner()
    if winner is None:
        return f"A draw, {mine} all."
    verdict = "You win" if winner == human_seat else "You lose"
    return f"{verdict} {mine} to {theirs}."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Play a player of the lab in the terminal.")
    parser.add_argument("player", help="the opponent, e.g. greedy, minimax:6, nn1h128")
    parser.add_argument("--second", action="store_true", help="let the computer move first")
    parser.add_argument("--variant", choices=["kalah", "sungka"], default="kalah")
    parser.add_argument("--houses", type=int)
    parser.add_argument("--seeds", type=int)
    parser.add_argument("--empty-capture", action="store_true", help="Kalah: capture lone seeds")
    parser.add_argument("--seed", type=int, help="random seed of the computer player")
    args = parser.parse_args(argv)
    options = {k: v for k, v in (("houses", args.houses), ("seeds", args.seeds)) if v}
    if args.empty_capture:
        options["empty_capture"] = True
    seat = 1 if args.second else 0
    try:
        start = GameState.new(args.variant, **options)
        end = play_terminal(args.player, start, human_seat=seat, seed=args.seed)
    except Quit:
        print("\nYou quit. Bye.")
        return 0
    except ValueError as error:
        print(f"play: {error}", file=sys.stderr)
        return 2
    print(result_line(end, seat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
