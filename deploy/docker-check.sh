#!/usr/bin/env bash
# Check the Docker images end to end, in one command:  ./deploy/docker-check.sh
#
#  1. builds both images (./deploy/build.sh), printing the players the api image offers;
#  2. states the api image's size and its largest layers;
#  3. runs the api image as deploy/compose.yaml does (read-only file system, /tmp a
#     tmpfs) and times its start-up to the first answer of /api/health;
#  4. waits for Docker's own health check to say "healthy";
#  5. plays a whole game through the API against each player it offers (deploy/api_games.py);
#  6. plays the page in headless Chromium (tests/webapi/test_web_e2e.py, MANCALA_E2E_URL);
#  7. checks the server logged no error, then stops it;
#  8. runs ./deploy/dev.sh --ci in the dev image (lint and every test).
# Steps 5, 6 and 8 run in the dev image. Every container uses the host's network
# (--network host; the api on 127.0.0.1:PORT, PORT=8765 or the next free port), which
# works on an engine without a bridge network. Needs bash, curl and a Linux Docker engine.
# The real output is in docs/docker.md. Exit 1 at the first step that fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export MANCALA_DOCKER_NETWORK=host DOCKER_BUILDKIT=1
work="$(mktemp -d)"
container="mancala-check-$$"
began=$SECONDS

step() { echo; echo "== $* ($((SECONDS - began)) s)"; }
fail() { echo "docker-check: FAILED: $*" >&2; exit 1; }
cleanup() {
    docker rm -f "$container" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {  # the first port from $1 that nothing on 127.0.0.1 answers on
    local port=$1
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}
in_dev() {  # run a command in the dev image, the repo at /app, on the host's network
    docker run --rm --network host -v "$root:/app" -w /app -e MANCALA_IN_DOCKER=1 \
        -e PYTHONPATH=/app mancala-dev "$@"
}
health() { curl -fsS --max-time 2 "$url/api/health" 2>/dev/null; }

command -v curl >/dev/null || fail "curl is needed"
docker info >/dev/null 2>&1 || fail "no Docker engine answers ('docker info')"

step "1. building the images (./deploy/build.sh; log: $work/build.log)"
if ! ./deploy/build.sh >"$work/build.log" 2>&1; then
    tail -40 "$work/build.log"
    fail "the build (above: the end of its log)"
fi
offer='s/^#[0-9]* [0-9.]* \(players the image offers:.*\|left out by design:.*\)/   \1/p'
if grep -q 'players the image offers:' "$work/build.log"; then
    sed -n "$offer" "$work/build.log"
else
    echo "   (the api build's check of its players was cached: it passed on an earlier build)"
fi
grep '^built ' "$work/build.log" | sed 's/^/   /'

step "2. the api image's size"
bytes=$(docker image inspect -f '{{.Size}}' mancala-api:latest)
echo "   mancala-api: $((bytes / 1000000)) MB; its largest layers:"
docker history --no-trunc --format '{{.Size}}\t{{.CreatedBy}}' mancala-api:latest \
    | sort -h -r | head -4 | cut -c1-110 | sed 's/^/   /'

step "3. running the api image read-only (as deploy/compose.yaml)"
port=$(free_port 8765)
url="http://127.0.0.1:$port"
started=$(date +%s%N)
docker run -d --name "$container" --network host --read-only --tmpfs /tmp \
    -e HOST=127.0.0.1 -e PORT="$port" mancala-api:latest >/dev/null
for _ in $(seq 1 1200); do
    health >/dev/null && break
    [ "$(docker inspect -f '{{.State.Running}}' "$container")" = true ] \
        || { docker logs "$container" 2>&1 | tail -20; fail "the container exited"; }
    sleep 0.1
done
health >/dev/null || fail "no answer from $url/api/health within 120 s"
ms=$((($(date +%s%N) - started) / 1000000))
echo "   $url/api/health answered $(health) after $((ms / 1000)).$((ms % 1000 / 100)) s"
if docker exec "$container" touch /app/written 2>/dev/null; then
    fail "the container's file system is writable"
fi
echo "   the file system is read-only (touch /app/written is refused)"

step "4. Docker's health check"
for _ in $(seq 1 60); do
    status=$(docker inspect -f '{{.State.Health.Status}}' "$container")
    [ "$status" = healthy ] && break
    sleep 1
done
echo "   health status: $status"
[ "$status" = healthy ] || fail "the health check says $status"

step "5. a whole game through the API against each player offered"
in_dev python deploy/api_games.py "$url" || fail "a game through the API"

step "6. the page in headless Chromium (tests/webapi/test_web_e2e.py against the container)"
in_dev env MANCALA_E2E_URL="$url" python -m pytest -p no:cacheprovider \
    tests/webapi/test_web_e2e.py || fail "the browser game"

step "7. the server's log"
docker logs "$container" >"$work/server.log" 2>&1
errors=$(grep -c -E 'Traceback|\[ERROR\]| 500 ' "$work/server.log" || true)
sed -n '1,3p' "$work/server.log" | cut -c1-110 | sed 's/^/   /'
echo "   $(wc -l <"$work/server.log") lines, $errors errors"
[ "$errors" = 0 ] || { cat "$work/server.log"; fail "the server logged errors"; }
docker rm -f "$container" >/dev/null

step "8. ./deploy/dev.sh --ci in the dev image"
env -u MANCALA_NO_DOCKER ./deploy/dev.sh --ci -p no:cacheprovider || fail "dev.sh --ci"

step "docker-check: all passed in $((SECONDS - began)) s"
