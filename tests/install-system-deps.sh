#!/usr/bin/env bash
# What the test suite needs beyond pip: Debian's chromium for the browser tests (a Playwright browser
# download does not work on these machines), Debian's PostgreSQL server for the store's PostgreSQL
# tests, Debian's nginx for the deploy/nginx tests, Mozilla's ical.js from npm and khal + vdirsyncer
# (in a virtual environment of their own) for the parser agreement tests, axe-core from npm for the
# browser tests' accessibility checks, and Debian's DAViCal (with php-cgi, installed first so apt
# does not pull in Apache for it) for the CalDAV tests.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The store's PostgreSQL tests start a throwaway cluster with Debian's server binaries.
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
# The deploy tests run nginx with deploy/nginx's files (installing it starts no service here).
[ -x /usr/sbin/nginx ] || missing+=(nginx)
# tests/deploy/test_dockerfile.py: a virtual environment of Debian's python3.11 stands in for the
# image's Python (the unprivileged user cannot run a Python installed under /root).
/usr/bin/python3.11 -c "import ensurepip" 2>/dev/null || missing+=(python3.11-venv)
# DAViCal: the CalDAV server that does not enforce UID uniqueness (tests/helpers/davical.py).
davical=()
[ -x /usr/bin/php-cgi ] || missing+=(php-cgi)
[ -d /usr/share/davical/htdocs ] || davical+=(davical)
if [ $((${#missing[@]} + ${#davical[@]})) -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # A second step: DAViCal depends on "php", which takes php-cgi once it is there, else Apache.
  if [ ${#davical[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${davical[@]}" >/dev/null
  fi
fi
# sabre/dav, Cyrus and SOGo for the CalDAV tests, with ../shared's own installer (it does nothing
# when every package is there).
if [ -f ../shared/caldav-servers/install-deps.sh ]; then
  bash ../shared/caldav-servers/install-deps.sh >/dev/null
fi
npm ci --prefix tests/interop --no-audit --no-fund --loglevel=error
npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error
# khal and vdirsyncer for the parser agreement tests (tests/helpers/khal.py), in a virtual
# environment of their own: their pins would fight the project's. Nothing to do once installed.
khal_venv=tests/.tools/khal
if ! "$khal_venv/bin/python" -m pip freeze 2>/dev/null | sort | cmp -s - <(grep -v '^#' requirements/khal.txt | sort); then
  python3 -m venv "$khal_venv"
  "$khal_venv/bin/pip" install -q --disable-pip-version-check -r requirements/khal.txt
fi
