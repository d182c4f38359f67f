#!/usr/bin/env bash
# Run the project in its environment.
#
#   ./deploy/dev.sh mancala tournament 3      runs the lab's command `mancala tournament 3`
#   ./deploy/dev.sh mancala/play.py           runs `python mancala/play.py` (any script)
#   ./deploy/dev.sh --ci                      runs lint (ruff) and every test (pytest + doctests)
#   ./deploy/dev.sh --quick                   the tests but the slow, browser, Ray and Docker ones
#   ./deploy/dev.sh --api                     serves the game and API (`mancala serve`)
#
# The tests run on every core (pytest-xdist; MANCALA_TEST_WORKERS=1 runs them in one process),
# each test file on one worker.
#
# Where a Docker engine answers, this runs inside the dev image (deploy/Dockerfile.dev);
# otherwise in a local .venv that it creates from requirements-dev.txt on first use and
# refreshes whenever a requirements file changes. MANCALA_NO_DOCKER=1 forces the .venv;
# MANCALA_DOCKER_NETWORK=host runs the container on the host's network (an engine without
# a bridge network), the server of --api on 127.0.0.1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
export TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-2}"

if [ -z "${MANCALA_IN_DOCKER:-}" ] && [ -z "${MANCALA_NO_DOCKER:-}" ] \
    && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    network=(); publish=(-p 8000:8000)  # the port of --api
    if [ -n "${MANCALA_DOCKER_NETWORK:-}" ]; then
        network=(--network "$MANCALA_DOCKER_NETWORK"); publish=()
        [ "$MANCALA_DOCKER_NETWORK" = host ] && publish=(-e HOST=127.0.0.1)
    fi
    DOCKER_BUILDKIT=1 docker build -q "${network[@]}" -f deploy/Dockerfile.dev -t mancala-dev . \
        >/dev/null
    tty=(); [ -t 0 ] && tty=(-t)
    exec docker run --rm -i "${tty[@]}" -v "$root:/app" -w /app -e MANCALA_IN_DOCKER=1 \
        "${network[@]}" "${publish[@]}" mancala-dev ./deploy/dev.sh "$@"
fi

if [ -n "${MANCALA_IN_DOCKER:-}" ]; then
    python=python
else
    python="$root/.venv/bin/python"
    stamp="$root/.venv/.requirements.sha256"
    wanted="$(cat requirements.txt requirements-dev.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
    if [ ! -x "$python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        mkdir -p "$root/.venv"
        exec 9>"$root/.venv/.setup.lock"
        flock 9  # one set-up at a time; the others wait and then find it done
        if [ ! -x "$python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
            echo "dev.sh: setting up .venv from requirements-dev.txt (first use: a few minutes)" >&2
            [ -x "$python" ] || python3 -m venv "$root/.venv"
            "$python" -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
            # the lab itself, editable: imports without PYTHONPATH, and .venv/bin/mancala
            "$python" -m pip install --quiet --disable-pip-version-check --no-deps -e .
            echo "$wanted" > "$stamp"
        fi
        exec 9>&-
    fi
fi

# The tests start many Python processes: with Python's bytecode cache (in __pycache__, beside
# numba's) each reads the lab's modules compiled instead of compiling them again.
case "${1:-}" in
    --ci | --quick) export PYTHONDONTWRITEBYTECODE= ;;
esac

case "${1:-}" in
    --ci)
        shift
        [ -x deploy/ci-extras.sh ] && deploy/ci-extras.sh
        "$python" -m ruff check .
        "$python" -m ruff format --check .
        exec "$python" -m pytest -n "${MANCALA_TEST_WORKERS:-auto}" --dist loadfile "$@"
        ;;
    --quick)
        shift
        exec "$python" -m pytest -n "${MANCALA_TEST_WORKERS:-auto}" --dist loadfile \
            -m "not slow and not browser and not ray and not docker" "$@"
        ;;
    --api)
        shift
        exec "$python" -m mancala serve "$@"
        ;;
    mancala)
        shift
        exec "$python" -m mancala "$@"
        ;;
    "")
        echo "usage: ./deploy/dev.sh mancala VERB [ARGS...] | SCRIPT [ARGS...] | --ci | --quick | --api" >&2
        exit 2
        ;;
    *)
        exec "$python" "$@"
        ;;
esac
