"""Play any player of the lab in the terminal.

    mancala play greedy               # you move first
    mancala play minimax --second     # the computer moves first
    mancala play exact --variant sungka
    mancala play minimax:2 --variant tak --size 5

Type a house letter (a, b, c...) or number (1, 2, 3...) counted from your leftmost
house, or in Tak a move in PTN (a1, Sb2, Cc3, 2c3>11); `q` quits (exit 0). Your houses
are the bottom row; in Tak you are white, or black with --second. Ctrl+C, SIGTERM or the end of
the input abandon the game (exit 130, 143 for SIGTERM). A player that cannot play the
chosen game (a network built for Kalah(6,4), say) is refused before the game starts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from mancala.ai.human import Human, InputEnded, Quit, read_line
from mancala.ai.registry import check_can_play, make_player
from mancala.commands.options import add_game_options, game_options
from mancala.core.cli import command_parser, fail
from mancala.core.stopping import exit_code, sigterm_as_interrupt
from mancala.game_state import GameState
from mancala.games import Capability, capabilities, game_names, new_game
from mancala.games.sowing.drawing import draw_board, house_choices, house_label
from mancala.games.sowing.events import trace_move


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
    if Capability.FRAMES not in capabilities(start):
        return _play_plainly(computer, human, start, human_seat, tell)
    names = ["you", opponent_spec] if human_seat == 0 else [opponent_spec, "you"]
    tell(f"You are the bottom row. Type a house: {house_choices(start.houses)}; q quits.")
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


def _play_plainly(computer, human, start, human_seat: int, tell: Callable[[str], None]):
    """A game without seed-by-seed frames (Tak): the drawing, then each move by name."""
    colour = ("white", "black")[human_seat]
    tell(f"You play {colour}. Type a move in PTN (a1, Sb2, Cc3, 2c3>11); q quits.")
    state = start
    tell(str(state))
    while not state.is_over():
        mine = state.player == human_seat
        move = human.choose_move(state) if mine else computer.choose_move(state)
        who = "You play" if mine else f"{computer.name} plays"
        tell(f"{who} {state.move_name(move)}.")
        state = state.play(move)
        tell(str(state))
    return state


def result_line(state: GameState, human_seat: int) -> str:
    """'You win 30 to 18.' and the like, from the person's seat."""
    if Capability.SOWING not in capabilities(state):
        outcome = getattr(state, "outcome", None)
        how = f" ({outcome.reason})" if outcome and outcome.winner is not None else ""
        if state.winner() is None:
            return "A draw."
        return ("You win" if state.winner() == human_seat else "You lose") + how + "."
    mine, theirs = state.scores()[human_seat], state.scores()[1 - human_seat]
    winner = state.winner()
    if winner is None:
        return f"A draw, {mine} all."
    verdict = "You win" if winner == human_seat else "You lose"
    return f"{verdict} {mine} to {theirs}."


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala play", __doc__)
    parser.add_argument("player", help="the opponent, e.g. greedy, minimax:6, nn1h128")
    parser.add_argument("--second", action="store_true", help="let the computer move first")
    add_game_options(parser, game_names())
    parser.add_argument("--seed", type=int, help="random seed of the computer player")
    args = parser.parse_args(argv)
    seat = 1 if args.second else 0
    try:
        start = new_game(args.variant, **game_options(args))
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
        return fail("mancala play", str(error))
    print(result_line(end, seat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
