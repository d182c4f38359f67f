"""The JSON API: stateless, the client sends the position and gets the next one.

    GET  /api/health        {"status": "ok"}
    GET  /api/players       the computer players that can be made here
    GET  /api/variants      the variants, their default options and the API's limits
                            (board sizes, and the work one move may ask: "search")
    POST /api/new           {"variant", "options"}           -> a position
    POST /api/move          {"state", "move"}                -> a person's move played
    POST /api/play          {"state", "player"}              -> that player's move played
    POST /api/analyse       {"state"}                        -> the value of every legal move
    GET  /api/load          the searches running now and each worker's counters
    GET  /api/openapi.yaml  the OpenAPI document of all this (webapi/openapi.yaml)

The games are those of `mancala.games` (Kalah, Sungka, Tak), played through the game
protocol. A position is {"state": state.to_dict(), "legal_moves" (action ids), "names"
(their move names: houses 'a'.., Tak's PTN), "to_move" (0 or 1), "over", "scores"
(stores; Tak: flats on top), "winner"}; a Tak position adds "board" (each square's
stack, bottom first, as [player, kind] pairs, squares a1, b1, .. as in the action
encoding), "reserves" (each player's [stones, capstones] left) and "result" (road, flat
or draw; null while the game goes on). A move is an action id or its name; the answer
adds "move", "move_name", "mover", for a sowing game "frames" (the board after every
seed, for animation) and "events" (capture, extra turn, relay pick-ups, in words too:
mancala.games.sowing.events) and, from /api/play, "player", "evaluation" (the player's view,
or null) and "think_ms".
Every bad request gets a 4xx JSON {"error", "message", "status"} saying what is wrong:
400 for a malformed request, 422 for a move the rules refuse, 413 for a body too large.

The work of one /api/play is bounded (SEARCH_LIMITS, tighter than the registry's own
bounds): a player name whose parameter asks for more than the API allows ('mcts:200000000',
'minimax:t=5') is refused with a 400 naming the bound and the largest value allowed; a
legal one that would think longer (a fixed-depth search on a big board, the solver) is
cut at the deadline and plays its best move found by then. A request makes at most two
searches (the move, then the evaluation), each of at most SEARCH_LIMITS.seconds, so a
move takes at most twice that, far below gunicorn's timeout, and holds one thread, not
the worker (the searches release the GIL). A search (a player whose name takes a budget,
or an analysis) runs only when webapi.admission admits it: else a prompt 503 or 429 JSON
with Retry-After; the other players' moves are never refused.
"""

from __future__ import annotations

import json
import math
import re
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from mancala.ai.limits import Limits
from mancala.ai.registry import entry_params, is_search, split_spec
from mancala.game_state import DEFAULTS, IllegalMove
from mancala.games import (
    DEFAULT_GAME,
    Capability,
    capabilities,
    display,
    game_names,
    state_from_dict,
)
from mancala.games import new_game as opening  # `new_game` is the endpoint below
from webapi.admission import Admission
from webapi.analysis import analyse
from webapi.engine import PlayerPool, player_catalogue, sow_frames

OPENAPI = Path(__file__).with_name("openapi.yaml")
LIMITS = {"houses": 10, "seeds": 20, "relay_limit": 10_000}  # bounds on a request's rules
MAX_MOVE_TEXT = 40  # characters of a move given by name
SEARCH_LIMITS = Limits(  # the most one search of /api/play may do
    seconds=1.0,
    memory=32 << 20,
    build=False,  # no endgame database is built inside a request
    caps={"simulations": 100_000, "playouts": 1_000_000},
)
SEARCHES_PER_MOVE = 2  # the move, and the player's evaluation of the position
SPEC_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=:+-]{0,63}")

bp = Blueprint("api", __name__, url_prefix="/api")


# ----- reading a request ------------------------------------------------------------


def _body(*required: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """The request's JSON object, with every `required` key and nothing unknown."""
    raw = _raw_body()
    if not raw.strip():
        abort(400, "the request needs a JSON object body")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        abort(400, f"the body is not valid JSON: {str(exc)[:200]}")
    if not isinstance(data, dict):
        abort(400, f"the body must be a JSON object, not {type(data).__name__}")
    missing = [key for key in required if key not in data]
    if missing:
        abort(400, f"missing field(s): {', '.join(missing)}")
    unknown = sorted(set(data) - set(required) - set(optional))
    if unknown:
        allowed = ", ".join((*required, *optional))
        abort(400, f"unknown field(s): {', '.join(map(str, unknown))[:200]}; allowed: {allowed}")
    return data


def _raw_body() -> bytes:
    """The request's body; 413 (JSON, see errors) past MAX_CONTENT_LENGTH: by its
    Content-Length before reading, or, sent without one (chunked), once read past it."""
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is None and request.environ.get("wsgi.input_terminated"):
        raw = request.environ["wsgi.input"].read(limit + 1)
        if len(raw) > limit:
            abort(413)
        return raw
    return request.get_data(cache=False)


def _check_limits(options: Any) -> None:
    """Refuse option values that would make a board or a move too big to serve."""
    if not isinstance(options, dict):
        return  # the game's own reading reports the type
    for key, limit in LIMITS.items():
        value = options.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > limit:
            abort(400, f"{key} may be at most {limit} here, not {value}")


def _state(data: Any) -> Any:
    """The state of any game described by `data`, or 400 saying what is wrong with it."""
    if isinstance(data, dict):
        _check_limits(data.get("options"))
    try:
        return state_from_dict(data)
    except (ValueError, TypeError) as exc:
        abort(400, f"bad state: {str(exc)[:300]}")


def _spec(spec: Any, variant: str) -> str:
    """The player spec, checked: text, not a path, a computer player of `variant`."""
    if not isinstance(spec, str):
        abort(400, f"player must be a player name such as 'greedy', not {spec!r}"[:200])
    if any(mark in spec for mark in ("/", "\\", "..", "~")) or spec.startswith("."):
        abort(400, f"player {spec[:64]!r} looks like a path; give a player name such as 'greedy'")
    if not SPEC_PATTERN.fullmatch(spec):
        abort(400, f"player {spec[:64]!r} is not a player name (letters, digits, : = . _ + -)")
    name = split_spec(spec)[0]
    players = {entry["name"]: entry for entry in _catalogue()}
    if name not in players:
        abort(400, f"unknown player {name!r}; available: {', '.join(players)}")
    if variant not in players[name]["variants"]:
        abort(400, f"player {name!r} does not play {variant}")
    return spec


def _catalogue() -> list[dict]:
    """The players, worked out once per app (the registry is filled at import time)."""
    cached = current_app.extensions.get("mancala_players")
    if cached is None:
        cached = current_app.extensions["mancala_players"] = player_catalogue()
    return cached


def search_limits() -> dict[str, Any]:
    """The work one move may ask, as /api/variants reports it: seconds a search, searches
    a move, bytes a search, and each player's parameters as [least, most]."""
    players = {
        entry["name"]: {p.kind: [p.low, SEARCH_LIMITS.bound(p)] for p in params if not p.choices}
        for entry in _catalogue()
        if (params := entry_params(entry["name"]))
    }
    return {
        "seconds": SEARCH_LIMITS.seconds,
        "searches_per_move": SEARCHES_PER_MOVE,
        "memory": SEARCH_LIMITS.memory,
        "players": players,
    }


def _move(state: Any, value: Any) -> int:
    """The action id of `value`: an action id, or a move's name (422 if not a move)."""
    if isinstance(value, str) and len(value) <= MAX_MOVE_TEXT:
        try:
            return state.parse_move(value)
        except IllegalMove as exc:
            abort(422, f"illegal move: {exc}")
    if isinstance(value, bool) or not isinstance(value, int):
        abort(
            400, f"move must be an action id (a whole number) or a move's name, not {value!r}"[:200]
        )
    return value


# ----- answers ----------------------------------------------------------------------


def position(state: Any) -> dict[str, Any]:
    """The JSON of a position: the state and what the page needs to show it."""
    moves = state.legal_moves()
    answer = {
        "state": state.to_dict(),
        "legal_moves": moves,
        "names": [state.move_name(m) for m in moves],
        "to_move": state.player,
        "over": state.is_over(),
        "scores": None,  # a game without scores (or its display's)
        "winner": state.winner(),
    }
    return answer | display(state)


def _played(state: Any, move: int) -> dict[str, Any]:
    """The answer to `move` played in `state`: the move, its name, the new position (and,
    sown, the boards in between and the events); 422 if the rules refuse it."""
    try:
        name = state.move_name(move)
        if Capability.FRAMES not in capabilities(state):
            return {"move": move, "move_name": name, "mover": state.player} | position(
                state.play(move)
            )
        after, frames, events = sow_frames(state, move)
    except ValueError as exc:  # IllegalMove, or an action id out of range
        abort(422, f"illegal move: {exc}")
    return {
        "move": move,
        "move_name": name,
        "mover": state.player,
        "frames": [list(f) for f in frames],
        "events": events.to_dict(),
    } | position(after)


def plain(value: Any) -> Any:
    """`value` made JSON-safe: numpy scalars to numbers, keys to text, NaN to null.

    >>> plain({1: (0.5, float("nan")), "a": [True, None]})
    {'1': [0.5, None], 'a': [True, None]}
    """
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


# ----- endpoints --------------------------------------------------------------------


@bp.get("/health")
def health() -> Response:
    return jsonify(status="ok")


@bp.get("/players")
def players() -> Response:
    return jsonify(players=_catalogue())


@bp.get("/variants")
def variants() -> Response:
    return jsonify(
        variants=[
            {
                "name": name,
                "options": (options := opening(name).options),
                "defaults": DEFAULTS.get(name, options),
            }
            for name in game_names()
        ],
        limits=LIMITS,
        search=search_limits(),
    )


@bp.post("/new")
def new_game() -> Response:
    data = _body(optional=("variant", "options"))
    variant, options = data.get("variant", DEFAULT_GAME), data.get("options", {})
    if not isinstance(variant, str) or variant not in game_names():
        names = ", ".join(game_names())
        abort(400, f"unknown variant {str(variant)[:40]!r}; choose one of {names}")
    if not isinstance(options, dict):
        abort(400, "options must be a JSON object")
    _check_limits(options)
    try:
        state = opening(variant, **options)
    except (ValueError, TypeError) as exc:
        abort(400, f"bad options: {exc}")
    return jsonify(position(state))


@bp.post("/move")
def human_move() -> Response:
    data = _body("state", "move")
    state = _state(data["state"])
    return jsonify(_played(state, _move(state, data["move"])))


@bp.post("/play")
def player_move() -> Response:
    data = _body("state", "player", optional=("evaluate",))
    state = _state(data["state"])
    spec = _spec(data["player"], state.game)
    evaluate = data.get("evaluate", True)
    if not isinstance(evaluate, bool):
        abort(400, f"evaluate must be true or false, not {evaluate!r}"[:200])
    if state.is_over():
        abort(422, "the game is over: no move can be played")
    pool: PlayerPool = current_app.extensions["mancala_pool"]
    with _admitted(is_search(spec)):  # 503 or 429 here, before any work
        started = time.perf_counter()
        try:
            with pool.player(spec) as player:
                move = player.choose_move(state)
                evaluation = plain(player.evaluate(state)) if evaluate else None
        except ValueError as exc:  # a bad parameter ('minimax:x'), or a position it refuses
            abort(400, f"player {spec!r}: {exc}")
        except Exception as exc:  # e.g. a network made for another board size
            current_app.logger.exception("player %s failed on %s", spec, state.to_dict())
            kind = type(exc).__name__
            abort(422, f"player {spec!r} cannot move in this position ({kind}: {exc})")
    think_ms = round(1000 * (time.perf_counter() - started), 3)
    answer = _played(state, move)
    return jsonify(answer | {"player": spec, "evaluation": evaluation, "think_ms": think_ms})


@bp.post("/analyse")
def analyse_position() -> Response:
    """The value of every legal move for the player to move (webapi.analysis): exact where
    the solver proves it within the cap, else minimax's estimate; "kind" says which."""
    data = _body("state")
    state = _state(data["state"])
    if state.is_over():
        abort(422, "the game is over: there is no move to analyse")
    pool: PlayerPool = current_app.extensions["mancala_pool"]
    with _admitted():
        result = analyse(state, pool, current_app.config["ANALYSIS_SECONDS"])
    return jsonify(position(state) | {"analysis": plain(result)})


@bp.get("/load")
def load() -> Response:
    return jsonify(_admission().load())


def _admission() -> Admission:
    return current_app.extensions["mancala_admission"]


def _admitted(searching: bool = True) -> Any:
    """The admission of this request's search (a context); nothing held if it searches not."""
    return _admission().search(request.remote_addr or "") if searching else nullcontext()


@bp.get("/openapi.yaml")
def openapi() -> Response:
    return Response(OPENAPI.read_text(encoding="utf-8"), mimetype="application/yaml")
