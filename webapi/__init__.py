"""The browser game and JSON API of the lab: `create_app()` makes the Flask app.

    gunicorn -c python:webapi.gunicorn_config 'webapi:create_app()'   # production
    ./deploy/dev.sh --api                                              # the same, locally

Every error, from a bad move to an unknown URL or a body too large, is answered as JSON
{"error", "message", "status"}; an unexpected one is logged and answered as a JSON 500. A
refused search (webapi.admission) is a 503 or 429 with Retry-After, in the JSON too.

A body over MAX_CONTENT_LENGTH is refused by its Content-Length before it is read (a body
without one, as soon as it passes the limit); the rest of it, up to DRAIN_BYTES, is read
and dropped before the 413 is sent, so that the client, still sending, gets the answer
rather than a reset connection; a longer one is cut off and the connection closed.

The client of a request is the address it came from, unless TRUSTED_PROXIES (or
$MANCALA_TRUSTED_PROXIES) says how many proxies in front of the server set
X-Forwarded-For: behind Docker's port mapping alone, trust none (every client shows as
the address it connects from); behind one reverse proxy that sets the header, trust 1.
Never trust more proxies than there are, or any client can claim any address.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError
from werkzeug.middleware.proxy_fix import ProxyFix

SHARED_ENV = "MANCALA_API_SHARED"  # the folder of the state the workers share (webapi.shared)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app; `config` overrides the defaults (MAX_CONTENT_LENGTH, PLAYER_SEED...)."""
    from webapi.admission import Admission, Policy
    from webapi.api import SEARCH_LIMITS, bp  # here, so `python -m webapi.ratings` runs cleanly
    from webapi.engine import PlayerPool
    from webapi.shared import state_file

    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=64 * 1024,  # a state is well under 1 KiB
        JSON_SORT_KEYS=False,
        PLAYER_POOL_SIZE=24,  # idle players kept; each search table is within SEARCH_LIMITS
        PLAYER_SEED=None,  # a number makes the players' random choices repeatable
        ANALYSIS_SECONDS=2.0,  # the time cap of one /api/analyse (webapi.analysis)
        DRAIN_BYTES=1 << 20,  # of a refused body, read and dropped so the client gets the 413
        SEARCH_SLOTS=int(os.environ.get("MANCALA_SEARCH_SLOTS", "5")),  # searches a worker
        CLIENT_SEARCHES=2,  # searches a client runs at once while others search
        CLIENT_SEARCH_RATE="60 per minute",  # searches a client starts while others search
        TRUSTED_PROXIES=int(os.environ.get("MANCALA_TRUSTED_PROXIES", "0")),
        SHARED_STATE=os.environ.get(SHARED_ENV),  # None: a folder of this app's own
    )
    app.config.update(config or {})
    app.json.sort_keys = False
    if app.config["TRUSTED_PROXIES"]:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=app.config["TRUSTED_PROXIES"])
    app.extensions["mancala_pool"] = PlayerPool(
        app.config["PLAYER_POOL_SIZE"], app.config["PLAYER_SEED"], SEARCH_LIMITS
    )
    shared = state_file(app.config["SHARED_STATE"] or _own_folder())
    policy = Policy(
        app.config["SEARCH_SLOTS"], app.config["CLIENT_SEARCHES"], app.config["CLIENT_SEARCH_RATE"]
    )
    app.extensions["mancala_admission"] = Admission(policy, shared)
    app.register_blueprint(bp)

    @app.get("/")
    def index() -> str:
        return render_template("index.html")

    @app.get("/favicon.ico")
    def favicon():
        return app.send_static_file("favicon.svg")

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        message = exc.description
        whole = True
        if exc.code == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"the request body is over the limit of {limit} bytes"
            whole = _drain(request.environ.get("wsgi.input"), app.config["DRAIN_BYTES"])
        body = {"error": exc.name, "message": message, "status": exc.code}
        retry_after = getattr(exc, "retry_after", None)  # 503 and 429 of webapi.admission
        if retry_after is not None:
            body["retry_after"] = retry_after
        response = jsonify(body)
        response.status_code = exc.code or 500
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        if retry_after is not None:
            response.headers["Retry-After"] = str(retry_after)
        if not whole:
            response.headers["Connection"] = "close"
        return response

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        app.logger.exception("unexpected error")
        return http_error(InternalServerError("an unexpected error; it has been logged"))

    return app


def _own_folder() -> str:
    """A folder for the shared state of an app made outside gunicorn, removed at exit."""
    folder = tempfile.mkdtemp(prefix="mancala-api-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def _drain(stream: Any, most: int) -> bool:
    """Read and drop what is left of a request body, up to `most` bytes; True if it ended."""
    if stream is None:
        return True
    left = most
    try:
        while left > 0:
            chunk = stream.read(min(left, 64 * 1024))
            if not chunk:
                return True
            left -= len(chunk)
        return not stream.read(1)
    except (OSError, ValueError):
        return False
