#!/usr/bin/env bash
# Build the Docker images:  ./deploy/build.sh [api|dev|all]   (default: all)
#   mancala-api  deploy/Dockerfile.api  production: gunicorn, trained weights, endgame
#                database, health check; the build prints the players the image offers
#   mancala-dev  deploy/Dockerfile.dev  what ./deploy/dev.sh runs in
# TAG=1.2 names the api image's tag (default latest). MANCALA_DOCKER_NETWORK=host builds
# with the host's network (an engine without a bridge network). Needs a running engine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
what="${1:-all}"
case "$what" in api|dev|all) ;; *) echo "usage: deploy/build.sh [api|dev|all]" >&2; exit 2;; esac
if ! command -v docker >/dev/null 2>&1; then
    echo "build.sh: the docker command is not installed; install Docker to build images" >&2
    exit 1
fi
if ! docker info >/dev/null 2>&1; then
    echo "build.sh: no Docker engine answers ('docker info' failed): start the engine" \
        "or point DOCKER_HOST at one. Without Docker, ./deploy/dev.sh --api serves the app." >&2
    exit 1
fi
export DOCKER_BUILDKIT=1  # reads the Dockerfile-specific .dockerignore files
network=(); [ -n "${MANCALA_DOCKER_NETWORK:-}" ] && network=(--network "$MANCALA_DOCKER_NETWORK")
if [ "$what" != dev ]; then
    docker build --progress plain "${network[@]}" -f deploy/Dockerfile.api \
        -t "mancala-api:${TAG:-latest}" .
    echo "built mancala-api:${TAG:-latest}: docker run --rm -p 8000:8000 mancala-api:${TAG:-latest}"
fi
if [ "$what" != api ]; then
    docker build --progress plain "${network[@]}" -f deploy/Dockerfile.dev -t mancala-dev .
    echo "built mancala-dev (used by ./deploy/dev.sh)"
fi
