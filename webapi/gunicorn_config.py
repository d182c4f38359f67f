"""Gunicorn settings of the app, one place for `mancala serve`, the Docker image and tests.

    gunicorn -c python:webapi.gunicorn_config 'webapi:create_app()'

Environment: HOST (default 127.0.0.1; the Docker image sets 0.0.0.0), PORT (8000),
WEB_CONCURRENCY (worker processes, 2), THREADS (threads per worker, 8), TIMEOUT (60 s),
MANCALA_SEARCH_SLOTS (searches a worker runs at once, 5: webapi.admission).
The master compiles the search kernels before it starts the workers (`on_starting`), so
each worker inherits them and no request waits for a compiler, and makes the folder of
the state the workers share (webapi.shared), removed when the server stops; each worker
loads Keras, az's networks and the solver's database before it takes a request
(`post_worker_init`: webapi.engine.prepare_worker).
Threads share a worker's players, so a network is loaded once per worker; a slow
player (a deep search) holds one thread, not the worker: the searches release the GIL
and stop at the API's deadline (webapi.api.SEARCH_LIMITS), far below TIMEOUT, so the
timeout is never what ends a request. A worker runs more threads than search slots, so
the moves that need no search always find a thread free.
"""

import os
import shutil
import tempfile

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("THREADS", "8"))
worker_class = "gthread"
timeout = int(os.environ.get("TIMEOUT", "60"))
graceful_timeout = 10
keepalive = 5
backlog = 256
accesslog = os.environ.get("ACCESS_LOG") or None  # "-" logs every request to stdout
errorlog = "-"
control_socket_disable = True  # gunicorn's runtime control socket: unused, and one path per user


def on_starting(server) -> None:
    from webapi import SHARED_ENV
    from webapi.engine import warm_up

    os.environ[SHARED_ENV] = tempfile.mkdtemp(prefix="mancala-api-")
    server.log.info("compiling the search kernels (or loading them from numba's cache)")
    warm_up()


def post_worker_init(worker) -> None:
    from webapi.api import SEARCH_LIMITS
    from webapi.engine import prepare_worker

    prepare_worker(SEARCH_LIMITS)


def on_exit(server) -> None:
    from webapi import SHARED_ENV

    shutil.rmtree(os.environ.get(SHARED_ENV, ""), ignore_errors=True)
