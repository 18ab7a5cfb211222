#!/usr/bin/env bash
# What the test suite needs beyond pip: Debian's chromium for the browser tests (a Playwright browser
# download does not work on these machines) and Mozilla's ical.js from npm for the parser agreement tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
npm ci --prefix tests/interop --no-audit --no-fund --loglevel=error
