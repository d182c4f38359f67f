"""Play any player of the lab in the terminal.

    python mancala/play.py greedy               # you move first
    python mancala/play.py minimax --second     # the computer moves first
    python mancala/play.py exact --variant sungka

Type a house letter (a, b, c...) or number (1, 2, 3...) counted from your leftmost
house; `q` quits (exit 0). Your houses are the bottom row. Ctrl+C, SIGTERM or the end of
the input abandon the game (exit 130, 143 for SIGTERM). A player that cannot play the
chosen game (a network built for Kalah(6,4), say) is refused before the game starts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repo root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mancala.ai.human import Human, InputEnded, Quit, read_line
from mancala.ai.registry import check_can_play, make_player
from mancala.board_art import draw_board, house_choices, house_label
from mancala.core.cli import add_game_options, command_parser, fail, game_options
from mancala.core.stopping import exit_code, sigterm_as_interrupt
from mancala.game_state import GameState


def play_terminal(
    opponent_spec: str,
    start: GameState,
    human_seat: int = 0,
    seed: int | None = None,
    ask: Callable[[str], str] = read_line,
    tell: Callable[[str], None] = print,
) -> GameState:
    """Play a game between a person (`ask`/`tell`) and `opponent_spec`; the last position.

    Raises Quit when the person quits (q, or the end of input).
    """
    computer = make_player(opponent_spec, seed=seed)
    human = Human(ask=ask, tell=tell)
    names = ["you", opponent_spec] if human_seat == 0 else [opponent_spec, "you"]
    tell(f"You are the bottom row. Type a house: {house_choices(start.houses)}; q quits.")
    state = start
    tell(draw_board(state, bottom=human_seat, names=tuple(names)))
    while not state.is_over():
        if state.player == human_seat:
            move = human.choose_move(state)
            tell(f"You play {house_label(move)}.")
        else:
            move = computer.choose_move(state)
            tell(f"{opponent_spec} plays {house_label(move)} ({move + 1}).")
        mover = state.player
        state = state.play(move)
        tell(draw_board(state, bottom=human_seat, names=tuple(names)))
        if state.player == mover and not state.is_over():
            tell("Extra turn: " + ("you move again." if mover == human_seat else "it moves again."))
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
    parser = command_parser("play", __doc__)
    parser.add_argument("player", help="the opponent, e.g. greedy, minimax:6, nn1h128")
    parser.add_argument("--second", action="store_true", help="let the computer move first")
    add_game_options(parser)
    parser.add_argument("--seed", type=int, help="random seed of the computer player")
    args = parser.parse_args(argv)
    seat = 1 if args.second else 0
    try:
        start = GameState.new(args.variant, **game_options(args))
        check_can_play([args.player], start)
        with sigterm_as_interrupt():
            end = play_terminal(args.player, start, human_seat=seat, seed=args.seed)
    except InputEnded:
        print("\nThe input ended: the game is abandoned.")
        return 130
    except Quit:
        print("\nYou quit. Bye.")
        return 0
    except KeyboardInterrupt as stop:
        print("\nInterrupted: the game is abandoned.")
        return exit_code(stop)
    except ValueError as error:
        return fail("play", str(error))
    print(result_line(end, seat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
