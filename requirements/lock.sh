#!/usr/bin/env bash
# Regenerates the lock files from pyproject.toml: the newest releases inside its ranges, for every
# platform and Python >= 3.11 (uv's universal resolution writes the markers for them).
#   requirements/run.txt   what confcal needs to run (with PostgreSQL's driver), for deployments
#   requirements/test.txt  that plus everything the test suite needs; the README's test command uses it
# urllib3-future (under caldav's niquests) is locked as source only (--no-binary, written into the
# files): its wheel ships a urllib3/ of its own and a .pth that copies it over the real urllib3 at
# every interpreter start, so requests and dulwich would run on the fork. Built from source with
# URLLIB3_NO_OVERRIDE=1 in the environment (the README's install commands set it), it installs as
# urllib3_future only, beside the real urllib3 (tests/server/caldav/test_http_stack.py checks).
# uv resolves in about a second where pip-tools takes minutes, and writes plain requirements files
# that pip installs. It runs from a throwaway virtual environment, so nothing is installed for good.
set -euo pipefail
cd "$(dirname "$0")/.."
UV_VERSION=0.13.9
tool=$(mktemp -d)
trap 'rm -rf "$tool"' EXIT
python3 -m venv "$tool"
"$tool/bin/pip" install -q "uv==$UV_VERSION"
compile() {
  "$tool/bin/uv" pip compile pyproject.toml --universal --python-version 3.11 --quiet \
    --custom-compile-command "bash requirements/lock.sh" --no-binary urllib3-future --emit-build-options "$@"
}
compile --extra postgres -o requirements/run.txt
compile --extra postgres --extra test -o requirements/test.txt
echo "requirements/run.txt: $(grep -c '==' requirements/run.txt) packages; requirements/test.txt: $(grep -c '==' requirements/test.txt) packages"
