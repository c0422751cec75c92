#!/usr/bin/env bash
# Everything pagewire needs on a Debian machine with Node 20+: Debian's Chromium (only when
# /usr/bin/chromium is missing; needs root or sudo), Debian's HAProxy for the fleet test (when
# none is installed), and the npm dependencies (`npm ci`, which also builds dist/ through the
# prepare script).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  echo "setup: installing Debian's chromium" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# HAProxy, for the fleet test (test/e2e/fleet.test.ts) and bench/fleet.ts.
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then
  echo "setup: installing Debian's haproxy" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
fi

npm ci --no-audit --no-fund >&2
