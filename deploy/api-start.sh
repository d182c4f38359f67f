#!/bin/sh
# The api image's command: numba's cache, compiled while the image was built, copied to
# $NUMBA_CACHE_DIR (numba needs its cache writable; the file system may be read-only, as
# in compose.yaml, with /tmp a tmpfs), then gunicorn (webapi/gunicorn_config.py).
set -eu
mkdir -p "$NUMBA_CACHE_DIR"
cp -R /app/numba-cache/. "$NUMBA_CACHE_DIR"/
exec gunicorn -c python:webapi.gunicorn_config "webapi:create_app()"
