#!/usr/bin/env bash
# Serve the browser game and JSON API with gunicorn: `deploy/serve.sh PYTHON [GUNICORN ARGS]`.
# ./deploy/dev.sh --api calls it. The address is 127.0.0.1:8000 unless HOST / PORT say
# otherwise (0.0.0.0 inside the Docker dev image, so the published port answers).
# Worker and thread counts: WEB_CONCURRENCY, THREADS (see webapi/gunicorn_config.py).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${1:?usage: deploy/serve.sh PYTHON [gunicorn args...]}"
shift
if [ -n "${MANCALA_IN_DOCKER:-}" ]; then
    export HOST="${HOST:-0.0.0.0}"
fi
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-8000}"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
shown="$HOST"; [ "$HOST" = "0.0.0.0" ] && shown=localhost
echo "Serving the Mancala game on http://$shown:$PORT/ (API: http://$shown:$PORT/api/openapi.yaml); Ctrl+C stops"
exec "$python" -m gunicorn -c python:webapi.gunicorn_config "$@" 'webapi:create_app()'
