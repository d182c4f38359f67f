"""The match runner: plays games between two players, many in lockstep, of any game of
the protocol (`mancala.games`).

Games that wait for the same player are handed to it together through
`choose_moves`, so a network is asked once per batch, not once per position.
Every finished game comes back as a record in the format of training/*.jsonl.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from mancala.ai.base import Player
from mancala.arena.records import FORMAT
from mancala.game_state import GameState, IllegalMove
from mancala.games import Capability, capabilities, new_game

GAME_PLIES = 400  # a game without seeds (Tak) not over after this many plies is a draw


def ply_limit(start: GameState) -> int | None:
    """The plies after which a game like `start` stops as a draw: none for the sowing
    games (they always end), GAME_PLIES for the others (Tak has no move limit)."""
    return None if Capability.SOWING in capabilities(start) else GAME_PLIES


def make_record(
    start: GameState,
    names: Sequence[str],
    moves: list[int],
    end: GameState,
    seed: int | None,
    **extra: Any,
) -> dict[str, Any]:
    """A game record (the format of training/README.md); `extra` keys (e.g. opening=4) are added. A
    sowing game's record has the final `scores`; a game without scores has none."""
    record = {
        "format": FORMAT,
        "variant": start.game,
        "options": dict(start.options),
        "players": list(names),
        "moves": moves,
        "scores": list(end.scores()) if Capability.SOWING in capabilities(end) else None,
        "winner": end.winner(),
        "seed": seed,
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if record["scores"] is None:
        del record["scores"]
    record.update(extra)
    return record


def play_games(
    players: Sequence[Player],
    starts: Sequence[GameState],
    *,
    openings: Sequence[list[int]] | None = None,
    seed: int | None = None,
    on_move: Callable[[int, GameState, int], None] | None = None,
    on_game: Callable[[dict[str, Any]], None] | None = None,
    max_plies: int | None = None,
) -> list[dict[str, Any]]:
    """Play one game from each of `starts`, `players[i]` moving for seat i.

    `openings[k]` are moves already played to reach `starts[k]` from the opening of the
    variant; they are recorded first (the record's `opening` key counts them).
    `on_move(game, state, move)` is told every move, `on_game(record)` every end.
    A player that answers with an illegal move raises IllegalMove naming the player.
    With `max_plies`, a game not over after that many plies (the opening counted) stops
    there: its record has winner None and `"unfinished": true` (Tak has no move limit
    of its own, and two players that only move stacks may never end it).
    """
    openings = openings or [[] for _ in starts]
    histories = [list(opening) for opening in openings]
    states = list(starts)
    initial = [_opening_of(start, opening) for start, opening in zip(starts, openings)]
    records: list[dict[str, Any] | None] = [None] * len(states)
    names = [player.name for player in players]

    def finish(k: int) -> None:
        extra: dict[str, Any] = {"opening": len(openings[k])}
        if not states[k].is_over():
            extra["unfinished"] = True
        records[k] = make_record(initial[k], names, histories[k], states[k], seed, **extra)
        if on_game:
            on_game(records[k])

    for k, state in enumerate(states):
        if state.is_over():
            finish(k)
    while True:
        waiting = [k for k in range(len(states)) if records[k] is None]
        if not waiting:
            break
        for seat in (0, 1):
            batch = [k for k in waiting if states[k].player == seat]
            if not batch:
                continue
            moves = players[seat].choose_moves([states[k] for k in batch])
            for k, move in zip(batch, moves):
                try:
                    after = states[k].play(move)
                except IllegalMove as error:
                    raise IllegalMove(f"player {names[seat]!r} chose {move!r}: {error}") from None
                if on_move:
                    on_move(k, states[k], move)
                histories[k].append(move)
                states[k] = after
                if after.is_over() or len(histories[k]) == max_plies:
                    finish(k)
            waiting = [k for k in waiting if records[k] is None]
    return records  # type: ignore[return-value]


def play_game(players: Sequence[Player], start: GameState | None = None, **kwargs: Any) -> dict:
    """One game from `start` (the Kalah opening by default); its record."""
    return play_games(players, [start or GameState.new()], **kwargs)[0]


def _opening_of(start: GameState, opening: list[int]) -> GameState:
    """The game's opening position that `opening` moves lead from to `start`."""
    if not opening:
        return start
    return new_game(start.game, **start.options)
