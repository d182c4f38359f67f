"""How strong each player of the page is: ratings from a tournament the project ran.

    mancala tournament 5 --json > tournament.json   # the page's players, Kalah(6,4)
    python -m webapi.ratings tournament.json --command "..."  # -> webapi/player_ratings.json

The file ships with the app: for each player spec its rating (Elo scale, the pool's mean
1500), its standard error and the games it played, with the date and the exact command of
the tournament. A rating is relative to that pool of players, so the plain word for it
(`level`) is too:

    below 1300  beginner    (random and one-rule players)
    1300-1499   casual
    1500-1649   club
    1650-1799   strong
    1800 up     expert

A player the file does not name is "not rated": nothing is made up for it.

>>> level(1100), level(1500), level(1700), level(1900), level(None)
('beginner', 'club', 'strong', 'expert', 'not rated')
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

from mancala.core.atomic import write_json

RATINGS = Path(__file__).with_name("player_ratings.json")
LEVELS = ((1800, "expert"), (1650, "strong"), (1500, "club"), (1300, "casual"))
NOT_RATED = "not rated"


def level(rating: float | None) -> str:
    """The plain word for `rating` (see the table above); "not rated" for None."""
    if rating is None:
        return NOT_RATED
    return next((word for floor, word in LEVELS if rating >= floor), "beginner")


@lru_cache(maxsize=4)
def load_ratings(path: Path = RATINGS) -> dict[str, Any]:
    """The shipped ratings file: {"date", "command", "game", "ratings": {spec: {...}}};
    an empty "ratings" when the file is missing or unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"ratings": {}}
    if not isinstance(data, dict) or not isinstance(data.get("ratings"), dict):
        return {"ratings": {}}
    return data


def rating_of(spec: str, path: Path = RATINGS) -> dict[str, Any] | None:
    """{"rating", "error", "games", "level", "date", "command", "game"} of `spec`, or None."""
    data = load_ratings(path)
    entry = data["ratings"].get(spec)
    if entry is None:
        return None
    about = {key: data.get(key) for key in ("date", "command", "game")}
    return entry | {"level": level(entry["rating"])} | about


def summarise(result: dict[str, Any], command: str, date: str) -> dict[str, Any]:
    """The small ratings file from a `mancala tournament --json` result."""
    options = result["options"]
    game = f"{result['variant']}({options['houses']},{options['seeds']})"
    games = {a: sum(t["games"] for t in row.values()) for a, row in result["results"].items()}
    return {
        "date": date,
        "command": command,
        "game": game,
        "games_per_seat": result["games_per_seat"],
        "seconds": round(result["seconds"], 1),  # of play
        "ratings": {
            spec: {"rating": round(r["rating"]), "error": round(r["error"]), "games": games[spec]}
            for spec, r in sorted(result["ratings"].items(), key=lambda kv: -kv[1]["rating"])
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Make the page's ratings file.")
    parser.add_argument("result", type=Path, help="the JSON that mancala tournament --json printed")
    parser.add_argument("--command", required=True, help="the command that ran the tournament")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--out", type=Path, default=RATINGS)
    args = parser.parse_args(argv)
    try:
        result = json.loads(args.result.read_text(encoding="utf-8"))
        summary = summarise(result, args.command, args.date)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"ratings: {args.result} is not a tournament result ({error})", file=sys.stderr)
        return 2
    write_json(args.out, summary)
    print(f"wrote {args.out}: {len(summary['ratings'])} players")
    return 0


if __name__ == "__main__":
    sys.exit(main())
