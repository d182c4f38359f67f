"""Load test of the JSON API from a second process on loopback (a benchmark, not a test).

    python webapi/loadtest.py                        # starts gunicorn itself, 50 clients, 30 s
    python webapi/loadtest.py --url http://127.0.0.1:8000 --clients 80 --duration 60
    python webapi/loadtest.py --players greedy,minimax:4,nn1h128

Each client is a thread with its own keep-alive connection that plays Kalah games to the
end: it starts a game with POST /api/new, then asks /api/play for every move, each time
from a player drawn from the mix (by default greedy, the registry's quick minimax and
its first network: whichever of these /api/players lists). A request fails when it gets
no answer or an answer other than 200. Before the clock starts, every player of the mix
is asked a few times so each worker has made (loaded) it. The report gives requests/s
and the latency percentiles, overall and per player. Traffic goes only to the loopback
address given; every loop is bounded by --duration.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sys
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from mancala.core.report import Table
from webapi.serving import running_server

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) by nearest rank; 0.0 for no values.

    >>> percentile([5, 1, 3, 2, 4], 50), percentile([5, 1, 3, 2, 4], 95)
    (3, 5)
    """
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))  # ceil
    return ordered[int(rank) - 1]


class Client:
    """One simulated client: a keep-alive connection and the game it is playing."""

    def __init__(self, host: str, port: int, players: list[str], seed: int) -> None:
        self.host, self.port, self.players = host, port, players
        self.rng = random.Random(seed)
        self.connection: http.client.HTTPConnection | None = None
        self.game: dict | None = None

    def post(self, path: str, body: dict) -> tuple[int, dict | None]:
        data = json.dumps(body).encode()
        for attempt in (0, 1):  # a keep-alive connection the server closed: reconnect once
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.connection.request("POST", path, data, {"Content-Type": "application/json"})
                answer = self.connection.getresponse()
                payload = answer.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.connection.close()
                self.connection = None
                if attempt:
                    raise
        if answer.getheader("Connection", "").lower() == "close":
            self.connection.close()
            self.connection = None
        return answer.status, (json.loads(payload) if answer.status == 200 else None)

    def step(self) -> tuple[str, float, bool, str]:
        """One request: a new game, or a move of a player of the mix. (what, s, ok, error)"""
        started = time.perf_counter()
        if self.game is None or self.game["over"]:
            what, path, body = "new", "/api/new", {"variant": "kalah"}
        else:
            what = self.rng.choice(self.players)
            path, body = "/api/play", {"state": self.game["state"], "player": what}
        try:
            status, answer = self.post(path, body)
        except (OSError, http.client.HTTPException) as exc:
            if self.connection is not None:
                self.connection.close()
            self.connection, self.game = None, None
            return what, time.perf_counter() - started, False, type(exc).__name__
        elapsed = time.perf_counter() - started
        if status != 200:
            self.game = None
            return what, elapsed, False, f"HTTP {status}"
        self.game = answer
        return what, elapsed, True, ""


def default_mix(players: list[dict]) -> list[str]:
    """greedy, the quick minimax and the first network, of those the server lists."""
    specs = {p["name"]: p["spec"] for p in players if "kalah" in p["variants"]}
    mix = [specs["greedy"]] if "greedy" in specs else []
    for prefix in ("minimax", "nn"):
        found = [spec for name, spec in specs.items() if name.startswith(prefix)]
        if found:
            mix.append(found[0])
        else:
            print(f"loadtest: the server lists no {prefix}* player; left out of the mix")
    return mix


def run(url: str, clients: int, duration: float, players: list[str] | None, seed: int) -> dict:
    """Drive the server at `url` with `clients` clients for `duration` seconds; the stats."""
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK:
        raise SystemExit(f"loadtest: only a loopback address may be loaded, not {parts.hostname}")
    host, port = parts.hostname, parts.port or 80
    probe = http.client.HTTPConnection(host, port, timeout=30)
    probe.request("GET", "/api/players")
    listed = json.loads(probe.getresponse().read())["players"]
    probe.close()
    mix = players or default_mix(listed)
    if not mix:
        raise SystemExit("loadtest: no player to ask")
    print(f"loadtest: {clients} clients, {duration:.0f} s, players {', '.join(mix)}, on {url}")

    # warm-up: every worker makes every player before the clock starts
    warm = [Client(host, port, [spec], seed + i) for i, spec in enumerate(mix * 8)]
    with ThreadPoolExecutor(len(warm)) as pool:
        list(pool.map(lambda c: (c.step(), c.step()), warm))

    samples: list[tuple[str, float, bool, str]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + duration

    def drive(k: int) -> None:
        client, mine = Client(host, port, mix, seed * 1000 + k), []
        while time.monotonic() < deadline:
            mine.append(client.step())
        with lock:
            samples.extend(mine)

    started = time.monotonic()
    threads = [threading.Thread(target=drive, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + 120)
    elapsed = time.monotonic() - started
    return summarise(samples, elapsed, clients, mix)


def summarise(samples: list, elapsed: float, clients: int, mix: list[str]) -> dict:
    by_what: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for what, seconds, ok, error in samples:
        by_what[what].append(seconds * 1000)
        if not ok:
            errors[error] += 1

    def stats(ms: list[float]) -> dict:
        return {
            "requests": len(ms),
            "p50_ms": round(percentile(ms, 50), 1),
            "p95_ms": round(percentile(ms, 95), 1),
            "p99_ms": round(percentile(ms, 99), 1),
            "max_ms": round(max(ms, default=0.0), 1),
        }

    everything = [ms for values in by_what.values() for ms in values]
    return {
        "clients": clients,
        "seconds": round(elapsed, 1),
        "players": mix,
        "failed": sum(errors.values()),
        "errors": dict(errors),
        "requests_per_s": round(len(everything) / elapsed, 1),
        "all": stats(everything),
        "by_request": {what: stats(ms) for what, ms in sorted(by_what.items())},
    }


def report(result: dict) -> str:
    title = (
        f"{result['all']['requests']} requests in {result['seconds']} s from "
        f"{result['clients']} clients: {result['requests_per_s']} requests/s, "
        f"{result['failed']} failed {result['errors'] or ''}".rstrip()
    )
    table = Table(["request", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"], title=title)
    for what, s in [*result["by_request"].items(), ("all", result["all"])]:
        table.add(what, s["requests"], s["p50_ms"], s["p95_ms"], s["p99_ms"], s["max_ms"])
    return table.markdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (loopback); default: start gunicorn")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load (30)")
    parser.add_argument("--players", help="comma-separated specs (default: see above)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers if started")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker if started")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.clients < 1 or not 0 < args.duration <= 3600:
        parser.error("--clients must be at least 1 and --duration in (0, 3600] seconds")
    players = [p for p in (args.players or "").split(",") if p] or None

    def go(url: str) -> dict:
        return run(url, args.clients, args.duration, players, args.seed)

    if args.url:
        result = go(args.url.rstrip("/"))
    else:
        with running_server(workers=args.workers, threads=args.threads) as url:
            result = go(url)
    print(json.dumps(result, indent=2) if args.json else report(result))
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
