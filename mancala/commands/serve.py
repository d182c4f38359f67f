"""Serve the browser game and the JSON API with gunicorn (webapi/gunicorn_config.py).

    mancala serve                          # http://127.0.0.1:8000/
    mancala serve --host 0.0.0.0 --port 8080
    mancala serve --workers 4 --threads 8

Options not listed here go to gunicorn as they are (`mancala serve -- --log-level debug`).
Ctrl+C stops it. `./deploy/dev.sh --api` runs it in the project's environment.
"""

from __future__ import annotations

import os
import sys

from mancala.core.cli import command_parser, int_in

APP = "webapi:create_app()"


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("mancala serve", __doc__)
    inside = bool(os.environ.get("MANCALA_IN_DOCKER"))  # the published port must answer
    parser.add_argument("--host", default=os.environ.get("HOST", "0.0.0.0" if inside else None))
    parser.add_argument("--port", type=int_in(1, 65535), default=os.environ.get("PORT", "8000"))
    parser.add_argument("--workers", type=int_in(1, 64), help="worker processes (2)")
    parser.add_argument("--threads", type=int_in(1, 256), help="threads a worker (8)")
    parser.add_argument("gunicorn", nargs="*", help="more gunicorn options, after --")
    args = parser.parse_args(argv)
    host = args.host or "127.0.0.1"
    env = {"HOST": host, "PORT": str(args.port)}
    if args.workers:
        env["WEB_CONCURRENCY"] = str(args.workers)
    if args.threads:
        env["THREADS"] = str(args.threads)
    os.environ.update(env)
    shown = "localhost" if host == "0.0.0.0" else host
    print(
        f"Serving the Mancala game on http://{shown}:{args.port}/ "
        f"(API: http://{shown}:{args.port}/api/openapi.yaml); Ctrl+C stops",
        flush=True,
    )
    command = [sys.executable, "-m", "gunicorn", "-c", "python:webapi.gunicorn_config"]
    os.execv(sys.executable, [*command, *args.gunicorn, APP])
