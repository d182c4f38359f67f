"""The browser game and JSON API of the lab: `create_app()` makes the Flask app.

    gunicorn -c python:webapi.gunicorn_config 'webapi:create_app()'   # production
    ./deploy/dev.sh --api                                              # the same, locally

Every error, from a bad move to an unknown URL or a body too large, is answered as JSON
{"error", "message", "status"}; an unexpected one is logged and answered as a JSON 500.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, render_template
from werkzeug.exceptions import HTTPException, InternalServerError


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The app; `config` overrides the defaults (MAX_CONTENT_LENGTH, PLAYER_SEED...)."""
    from webapi.api import SEARCH_LIMITS, bp  # here, so `python -m webapi.ratings` runs cleanly
    from webapi.engine import PlayerPool

    app = Flask(__name__)
    app.config.update(
        MAX_CONTENT_LENGTH=64 * 1024,  # a state is well under 1 KiB
        JSON_SORT_KEYS=False,
        PLAYER_POOL_SIZE=16,  # idle players kept; each search table is within SEARCH_LIMITS
        PLAYER_SEED=None,  # a number makes the players' random choices repeatable
        ANALYSIS_SECONDS=2.0,  # the time cap of one /api/analyse (webapi.analysis)
    )
    app.config.update(config or {})
    app.json.sort_keys = False
    app.extensions["mancala_pool"] = PlayerPool(
        app.config["PLAYER_POOL_SIZE"], app.config["PLAYER_SEED"], SEARCH_LIMITS
    )
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
        if exc.code == 413:
            limit = app.config["MAX_CONTENT_LENGTH"]
            message = f"the request body is over the limit of {limit} bytes"
        response = jsonify(error=exc.name, message=message, status=exc.code)
        response.status_code = exc.code or 500
        if exc.code == 405 and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response

    @app.errorhandler(Exception)
    def unexpected_error(exc: Exception):
        app.logger.exception("unexpected error")
        return http_error(InternalServerError("an unexpected error; it has been logged"))

    return app
