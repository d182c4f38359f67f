#!/usr/bin/env bash
# Run by ./deploy/dev.sh --ci before the tests: Debian's Chromium and its driver, which the
# end-to-end browser test (tests/webapi/test_web_e2e.py) drives. Installs them when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "ci-extras.sh: chromium and chromium-driver are missing; as root run:" \
        "apt-get update && apt-get install chromium chromium-driver" >&2
    exit 1
fi
echo "ci-extras.sh: installing chromium and chromium-driver (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null
apt-get install -y -qq --no-install-recommends chromium chromium-driver </dev/null >/dev/null
