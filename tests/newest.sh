#!/usr/bin/env bash
# The suite against the newest release of every dependency, past the lock and past pyproject.toml's
# upper bounds: what the next `bash requirements/lock.sh` (or a newcomer's unpinned install) would
# meet. Prints the releases newer than the lock, then what broke. Exits with pytest's status.
# Usage: bash tests/newest.sh [PYTEST ARGS...]   (default: the whole suite, in parallel)
set -uo pipefail
cd "$(dirname "$0")/.."
unset PYTHONPATH PYTHONHOME
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
# shellcheck source=/dev/null
. "$work/venv/bin/activate"
# Every dependency named in pyproject.toml (runtime and every extra), without its version range.
python - > "$work/newest.txt" <<'PY'
import re
import tomllib

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
wanted = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
for requirement in wanted:
    name = re.match(r"[A-Za-z0-9_.\-]+(\[[^\]]*\])?", requirement)
    marker = requirement.partition(";")[2].strip()
    print(name.group(0) + (f"; {marker}" if marker else "") if name else requirement)
PY
# urllib3-future from source with URLLIB3_NO_OVERRIDE=1, as the lock installs it (requirements/lock.sh).
URLLIB3_NO_OVERRIDE=1 pip install -q --upgrade --no-binary urllib3-future -r "$work/newest.txt" || { echo "newest: the newest releases cannot be installed together"; exit 2; }
pip install -q --no-deps -e .
echo "== releases newer than requirements/test.txt"
pip list --format=freeze | python -c '
import re, sys
locked = {}  # a package can be locked at one version per Python (markers): any of them counts
for line in open("requirements/test.txt"):
    m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
    if m:
        locked.setdefault(m.group(1).lower().replace("_", "-"), set()).add(m.group(2))
for line in sys.stdin:
    name, _, version = line.strip().partition("==")
    key = name.lower().replace("_", "-")
    if key in locked and version not in locked[key]:
        print(f"  {name}: {sorted(locked[key])[-1]} -> {version}")
'
bash tests/install-system-deps.sh >/dev/null
echo "== the suite on the newest releases"
if [ $# -eq 0 ]; then set -- -n auto; fi
python -m pytest -q -p no:cacheprovider -rfE --tb=line "$@"
status=$?
echo "newest: pytest exited $status (0: nothing broke)"
exit $status
