"""Games through the JSON API against every computer player it offers, one per player.

    python3 deploy/api_games.py http://127.0.0.1:8000   whole games over HTTP (stdlib only)
    python deploy/api_games.py --build                  in process, while the api image builds

A person (seat 0) plays random legal moves (/api/move) and the player answers (/api/play)
until the game is over, in the first variant the player plays; every answer must be a
200 with no seed lost. Exit 1 naming each player that failed.

--build is the api image's check (deploy/Dockerfile.api): it prints the players the image
offers and fails unless every registered computer player is offered or left out by
design (an optional package it needs is not installed, e.g. openspiel-mcts without
open_spiel). It plays only the first plies of each game and one analysis, which is enough
to compile every search kernel into numba's cache ($NUMBA_CACHE_DIR), so that the image
starts with them compiled. --allow-missing reports players that cannot be made (weights
or database missing) without failing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

Call = Callable[[str, "dict | None"], dict]  # (path, JSON body or None for a GET) -> answer
BUILD_PLIES = 8  # enough to leave the solver's opening book and search


def http_caller(base: str) -> Call:
    """Requests to the API at `base`; RuntimeError for an answer other than 200."""

    def call(path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            base.rstrip("/") + path, data=data, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{path}: {exc.code} {exc.read()[:300]!r}") from None

    return call


def app_caller() -> Call:
    """Requests to the app in this process (Flask's test client), as `http_caller`."""
    from webapi import create_app

    client = create_app().test_client()

    def call(path: str, body: dict | None = None) -> dict:
        answer = client.get(path) if body is None else client.post(path, json=body)
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.get_data(True)[:300]}")
        return answer.get_json()

    return call


SMALL = {"tak": {"size": 4}}  # a whole game on a small board: its pieces run out sooner


def _seeds(game: dict) -> int | None:
    """The seeds on a sowing game's board (they never change); None for other games."""
    board = game["state"].get("board")
    return sum(board) if isinstance(board, list) else None


def play_game(
    call: Call,
    spec: str,
    variant: str,
    seed: int,
    plies: int | None = None,
    options: dict | None = None,
) -> dict:
    """A game of a random person (seat 0) against `spec` (with rule `options`, else a
    small board), ended or cut after `plies` plies; the last position with "plies" (how
    many were played)."""
    rng = random.Random(seed)
    options = SMALL.get(variant, {}) if options is None else options
    game = call("/api/new", {"variant": variant, "options": options})
    seeds, played = _seeds(game), 0
    while not game["over"] and (plies is None or played < plies):
        if game["to_move"] == 0:
            move = rng.choice(game["legal_moves"])
            game = call("/api/move", {"state": game["state"], "move": move})
        else:
            game = call("/api/play", {"state": game["state"], "player": spec})
        if _seeds(game) != seeds:
            raise RuntimeError(f"seeds lost after ply {played + 1}: {game['state']}")
        played += 1
        if played > 1000:
            raise RuntimeError("the game does not end")
    return game | {"plies": played}


def outcome(game: dict) -> str:
    """'12-36, the player wins' (the person's score first)."""
    if not game["over"]:
        return f"cut after {game['plies']} plies"
    person, player = game["scores"]
    verdict = {None: "a draw", 0: "the person wins", 1: "the player wins"}[game["winner"]]
    return f"{game['plies']} plies, {person}-{player}, {verdict}"


def play_everyone(call: Call, plies: int | None = None) -> list[str]:
    """A game against each offered player, a line each; the names of those that failed."""
    failed, offered = [], call("/api/players")["players"]
    print(f"games against each of the {len(offered)} players offered", end="")
    print(f" (first {plies} plies)" if plies else "")
    for seed, player in enumerate(offered):
        spec, variant = player["spec"], player["variants"][0]
        boards = [b for b in player.get("boards", []) if b["variant"] == variant]
        options = {k: v for k, v in boards[0].items() if k != "variant"} if boards else None
        began = time.perf_counter()
        try:
            said = outcome(play_game(call, spec, variant, seed, plies, options))
        except (RuntimeError, OSError, KeyError) as exc:
            failed.append(spec)
            said = f"FAILED: {exc}"
        print(f"  {spec:<22} {variant:<7} {said} ({time.perf_counter() - began:.1f} s)")
    return failed


def check_offer(call: Call, allow_missing: bool) -> bool:
    """Print what the image offers; False when a player that belongs here is missing."""
    from mancala.ai.registry import available_players, describe_players, missing_packages

    offered = call("/api/players")["players"]
    names = {player["name"] for player in offered}
    interactive = set(available_players()) - set(available_players(include_interactive=False))
    absent = [name for name in describe_players() if name not in names | interactive]
    by_design = {name: missing_packages(name) for name in absent if missing_packages(name)}
    missing = [name for name in absent if name not in by_design]
    print("players the image offers:", ", ".join(player["spec"] for player in offered))
    for name, packages in by_design.items():
        print(f"left out by design: {name} (needs {', '.join(packages)}, not installed)")
    if missing:
        print("players that cannot be made (weights or database missing):", ", ".join(missing))
    return allow_missing or not missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="api_games.py", description=__doc__.split("\n")[0])
    parser.add_argument("url", nargs="?", help="the API's base URL (else --build)")
    parser.add_argument("--build", action="store_true", help="the image's build-time check")
    parser.add_argument("--allow-missing", action="store_true", help="with --build")
    args = parser.parse_args(argv)
    if bool(args.url) == args.build:
        parser.error("give either a URL or --build")
    call: Any = app_caller() if args.build else http_caller(args.url)
    if args.build and not check_offer(call, args.allow_missing):
        return 1
    failed = play_everyone(call, BUILD_PLIES if args.build else None)
    if args.build:
        call("/api/analyse", {"state": play_game(call, "greedy", "kalah", 0, 12)["state"]})
    if failed:
        print("failed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
