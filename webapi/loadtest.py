"""Load test of the JSON API from a second process on loopback (a benchmark, not a test).

    python webapi/loadtest.py                        # starts gunicorn itself, 50 clients, 30 s
    python webapi/loadtest.py --url http://127.0.0.1:8000 --clients 80 --duration 60
    python webapi/loadtest.py --players greedy,minimax:4,nn1h128
    python webapi/loadtest.py --saturate --clients 16 --duration 20

Each client is a thread with its own keep-alive connection that plays Kalah games to the
end: it starts a game with POST /api/new, then asks /api/play for every move, each time
from a player drawn from the mix (by default greedy, the registry's quick minimax and
its first network: whichever of these /api/players lists). A request fails when it gets
no answer or an answer other than 200, or than a refusal (503 or 429 with Retry-After:
webapi.admission), after which the client waits as it is told and asks again. Before the
clock starts, every player of the mix is asked a few times so each worker has made
(loaded) it. The report gives requests/s and the latency percentiles, overall and per
player. Traffic goes only to the loopback address given; every loop is bounded by
--duration.

--saturate asks the heaviest work the API admits: each of --clients clients, from an
address of its own (127.0.0.10, .11, ...), asks back to back for moves of searches at
the API's caps (SEARCHES_AT_THE_CAPS, those the server lists), while one client
(127.0.0.2) asks a greedy move every 0.25 s. The report adds the searches completed per
second, the refusals, the slowest answer to a search, and the cheap moves' latencies.
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
from mancala.games import DEFAULT_GAME
from webapi.serving import running_server

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
REFUSED = (429, 503)  # a search refused for now: the client waits Retry-After and asks again
SEARCHES_AT_THE_CAPS = ("minimax:t=1", "mcts:100000", "az:t=1", "solver:t=1")


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

    def __init__(
        self, host: str, port: int, players: list[str], seed: int, source: str | None = None
    ) -> None:
        self.host, self.port, self.players, self.source = host, port, players, source
        self.rng = random.Random(seed)
        self.connection: http.client.HTTPConnection | None = None
        self.game: dict | None = None
        self.retry_after = 0.0  # seconds the server asked this client to wait (503, 429)

    def post(self, path: str, body: dict) -> tuple[int, dict | None]:
        data = json.dumps(body).encode()
        bind = (self.source, 0) if self.source else None
        for attempt in (0, 1):  # a keep-alive connection the server closed: reconnect once
            if self.connection is None:
                self.connection = http.client.HTTPConnection(
                    self.host, self.port, timeout=60, source_address=bind
                )
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
        self.retry_after = float(answer.getheader("Retry-After") or 0)
        return answer.status, (json.loads(payload) if answer.status == 200 else None)

    def step(self) -> tuple[str, float, bool, str]:
        """One request: a new game, or a move of a player of the mix. (what, s, ok, error);
        a refusal (503 or 429 with Retry-After) is not ok, its error "refused"."""
        started = time.perf_counter()
        if self.game is None or self.game["over"]:
            what, path, body = "new", "/api/new", {"variant": DEFAULT_GAME}
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
        if status in REFUSED and self.retry_after:
            return what, elapsed, False, "refused"
        if status != 200:
            self.game = None
            return what, elapsed, False, f"HTTP {status}"
        self.game = answer
        return what, elapsed, True, ""


def default_mix(players: list[dict]) -> list[str]:
    """greedy, the quick minimax and the first network, of those the server lists."""
    specs = {p["name"]: p["spec"] for p in players if DEFAULT_GAME in p["variants"]}
    mix = [specs["greedy"]] if "greedy" in specs else []
    for prefix in ("minimax", "nn"):
        found = [spec for name, spec in specs.items() if name.startswith(prefix)]
        if found:
            mix.append(found[0])
        else:
            print(f"loadtest: the server lists no {prefix}* player; left out of the mix")
    return mix


def _target(url: str) -> tuple[str, int, list[dict]]:
    """The loopback host and port of `url`, and the players the server lists."""
    parts = urlsplit(url)
    if parts.hostname not in LOOPBACK:
        raise SystemExit(f"loadtest: only a loopback address may be loaded, not {parts.hostname}")
    host, port = parts.hostname, parts.port or 80
    probe = http.client.HTTPConnection(host, port, timeout=30)
    probe.request("GET", "/api/players")
    listed = json.loads(probe.getresponse().read())["players"]
    probe.close()
    return host, port, listed


def _drive(clients: list[Client], duration: float, pause: float = 0.0) -> tuple[list, float]:
    """Each client steps until `duration` is over (waiting as a refusal asks, and `pause`
    between requests); every sample and the seconds it took."""
    samples: list[tuple[str, float, bool, str]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + duration

    def drive(client: Client) -> None:
        mine = []
        while time.monotonic() < deadline:
            mine.append(client.step())
            wait = client.retry_after if mine[-1][3] == "refused" else pause
            time.sleep(max(0.0, min(wait, deadline - time.monotonic())))
        with lock:
            samples.extend(mine)

    started = time.monotonic()
    threads = [threading.Thread(target=drive, args=(c,), daemon=True) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(duration + 120)
    return samples, time.monotonic() - started


def run(url: str, clients: int, duration: float, players: list[str] | None, seed: int) -> dict:
    """Drive the server at `url` with `clients` clients for `duration` seconds; the stats."""
    host, port, listed = _target(url)
    mix = players or default_mix(listed)
    if not mix:
        raise SystemExit("loadtest: no player to ask")
    print(f"loadtest: {clients} clients, {duration:.0f} s, players {', '.join(mix)}, on {url}")

    _warm_up(host, port, mix, seed, copies=8)

    drivers = [Client(host, port, mix, seed * 1000 + k) for k in range(clients)]
    samples, elapsed = _drive(drivers, duration)
    return summarise(samples, elapsed, clients, mix)


def _warm_up(
    host: str, port: int, specs: list[str], seed: int, copies: int = 4, spread: bool = False
) -> None:
    """Ask each of `specs` for a move `copies` times at once (with `spread`, from four
    loopback addresses), so that every worker makes every player, loading its network or
    table, before the clock runs; a refused search is asked again."""

    def ask(k: int, spec: str) -> None:
        source = f"127.0.0.{250 + k % 4}" if spread else None
        client = Client(host, port, [spec], seed + k, source)
        client.step()  # a new game
        for _ in range(10):  # refused while the slots are busy: ask again
            if client.step()[3] != "refused":
                return
            time.sleep(client.retry_after)

    jobs = [(k, spec) for spec in specs for k in range(copies)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        list(pool.map(lambda job: ask(*job), jobs))


def run_saturation(
    url: str, clients: int, duration: float, players: list[str] | None, seed: int
) -> dict:
    """`clients` clients asking searches at the caps back to back, each from its own
    loopback address, and one asking greedy every 0.25 s, for `duration` seconds."""
    host, port, listed = _target(url)
    names = {p["name"] for p in listed if DEFAULT_GAME in p["variants"]}
    heavy = players or [s for s in SEARCHES_AT_THE_CAPS if s.partition(":")[0] in names]
    print(
        f"loadtest: {clients} clients asking {', '.join(heavy)} back to back and one asking "
        f"greedy every 0.25 s, {duration:.0f} s, on {url}"
    )
    _warm_up(host, port, heavy, seed, spread=True)
    searchers = [
        Client(host, port, heavy, seed * 1000 + k, f"127.0.0.{10 + k % 240}")
        for k in range(clients)
    ]
    cheap = Client(host, port, ["greedy"], seed, "127.0.0.2")
    result: dict = {}
    with ThreadPoolExecutor(2) as pool:
        searched = pool.submit(_drive, searchers, duration)
        asked = pool.submit(_drive, [cheap], duration, 0.25)
        result["searches"] = summarise(*searched.result(), clients, heavy)
        result["cheap"] = summarise(*asked.result(), 1, ["greedy"])
    moves = [stats for what, stats in result["searches"]["by_request"].items() if what != "new"]
    result["searches_per_s"] = round(
        sum(s["answered"] for s in moves) / result["searches"]["seconds"], 2
    )
    return result


def summarise(samples: list, elapsed: float, clients: int, mix: list[str]) -> dict:
    by_what: dict[str, list[float]] = defaultdict(list)
    answered: dict[str, int] = defaultdict(int)
    refused: dict[str, int] = defaultdict(int)
    errors: dict[str, int] = defaultdict(int)
    for what, seconds, ok, error in samples:
        by_what[what].append(seconds * 1000)
        answered[what] += ok
        refused[what] += error == "refused"
        if not ok and error != "refused":
            errors[error] += 1

    def stats(ms: list[float], what: str | None = None) -> dict:
        counts = {"answered": answered[what], "refused": refused[what]} if what else {}
        return {
            "requests": len(ms),
            **counts,
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
        "refused": sum(refused.values()),
        "errors": dict(errors),
        "requests_per_s": round(len(everything) / elapsed, 1),
        "all": stats(everything),
        "by_request": {what: stats(ms, what) for what, ms in sorted(by_what.items())},
    }


def report(result: dict) -> str:
    title = (
        f"{result['all']['requests']} requests in {result['seconds']} s from "
        f"{result['clients']} clients: {result['requests_per_s']} requests/s, "
        f"{result['refused']} refused, {result['failed']} failed {result['errors'] or ''}"
    ).rstrip()
    table = Table(
        ["request", "count", "answered", "refused", "p50 ms", "p95 ms", "p99 ms", "max ms"],
        title=title,
    )
    for what, s in result["by_request"].items():
        table.add(what, s["requests"], s["answered"], s["refused"], *_latencies(s))
    table.add("all", result["all"]["requests"], "", "", *_latencies(result["all"]))
    return table.markdown()


def _latencies(stats: dict) -> list[float]:
    return [stats["p50_ms"], stats["p95_ms"], stats["p99_ms"], stats["max_ms"]]


def report_saturation(result: dict) -> str:
    return "\n\n".join(
        [
            f"searches completed: {result['searches_per_s']} a second",
            report(result["searches"]),
            report(result["cheap"]),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running server (loopback); default: start gunicorn")
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients (50)")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of load (30)")
    parser.add_argument("--players", help="comma-separated specs (default: see above)")
    parser.add_argument("--saturate", action="store_true", help="searches at the caps (above)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers if started")
    parser.add_argument("--threads", type=int, default=8, help="threads per worker if started")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 240 or not 0 < args.duration <= 3600:
        parser.error("--clients must be in 1..240 and --duration in (0, 3600] seconds")
    players = [p for p in (args.players or "").split(",") if p] or None
    go, show = (run_saturation, report_saturation) if args.saturate else (run, report)

    def measure(url: str) -> dict:
        return go(url, args.clients, args.duration, players, args.seed)

    if args.url:
        result = measure(args.url.rstrip("/"))
    else:
        with running_server(workers=args.workers, threads=args.threads) as url:
            result = measure(url)
    print(json.dumps(result, indent=2) if args.json else show(result))
    failed = (
        result["searches"]["failed"] + result["cheap"]["failed"]
        if args.saturate
        else (result["failed"])
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
