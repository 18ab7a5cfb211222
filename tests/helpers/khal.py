"""khal through vdirsyncer, as a subscriber runs them: vdirsyncer copies a calendar (an .ics
subscription over http, or a CalDAV collection) into a filesystem vdir, khal lists its events.

Both run from their own virtual environment at tests/.tools/khal (tests/install-system-deps.sh
makes it from requirements/khal.txt): their pins would fight the project's. Without it the tests
fail under CI=true and skip locally, saying so.

khal prints every instant in its local zone, which is set to UTC here, so each row holds UTC
instants (all-day events keep their dates, the end exclusive as RFC 5545 states it). Anything either
tool prints at warning level or above fails the test: a warning is a client misreading the feed.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

TOOLS = ROOT / "tests" / ".tools" / "khal" / "bin"
VDIRSYNCER = TOOLS / "vdirsyncer"
KHAL = TOOLS / "khal"
# khal lists day by day, so the range costs about a second per process; it holds every schedule.
FIRST_DAY, LAST_DAY = "1970-01-01", "2100-12-31"
FIELDS = ("uid", "start-long", "end-long", "title", "location", "description", "url", "all-day", "calendar")
# vdirsyncer's http storage replaces every UID by a hash of the item (web calendars' UIDs are often
# unstable); this hook, run on each item before that, keeps the source's UID beside it.
ORIGINAL_UID = "X-CONFCAL-ORIGINAL-UID"
UID_HOOK = f'''
import sys

ENDS = ("END:VEVENT", "END:VTODO", "END:VJOURNAL")
raw = sys.stdin.read()
lines = raw.split("\\r\\n") if "\\r\\n" in raw else raw.split("\\n")
logical = []
for line in lines:
    if line[:1] in (" ", "\\t") and logical:
        logical[-1] += line[1:]
    else:
        logical.append(line)
uids = [line.split(":", 1)[1] for line in logical if line.upper().startswith(("UID:", "UID;"))]
out = []
for line in lines:
    if line.upper() in ENDS and uids:
        out.append("{ORIGINAL_UID}:" + uids.pop(0))
    out.append(line)
sys.stdout.write("\\r\\n".join(out))
'''


@dataclass(frozen=True)
class KhalEvent:
    """One event as khal lists it: instants in UTC (or dates for an all-day event)."""

    uid: str
    start: datetime | date
    end: datetime | date
    summary: str
    location: str
    description: str
    url: str


def tools_ready() -> None:
    """khal and vdirsyncer must be installed; missing them fails in CI and skips locally."""
    if VDIRSYNCER.is_file() and KHAL.is_file():
        return
    reason = "khal + vdirsyncer are not installed (run: bash tests/install-system-deps.sh)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def read_subscription(url: str, work: Path) -> list[KhalEvent]:
    """The events of the .ics at `url`, read as a subscriber through vdirsyncer's http storage."""
    return read_subscriptions({"feed": url}, work)["feed"]


def read_subscriptions(urls: Mapping[str, str], work: Path) -> dict[str, list[KhalEvent]]:
    """Many subscriptions in one vdirsyncer and one khal run: {name: events}. Names are any text."""
    hook = work / "keep_uid"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!{TOOLS / 'python'}\n{UID_HOOK}", encoding="utf-8")
    hook.chmod(0o755)
    storages = {name: {"type": "http", "url": url, "filter_hook": str(hook)} for name, url in urls.items()}
    return _read(storages, work)


def read_caldav(url: str, username: str, password: str, work: Path) -> list[KhalEvent]:
    """The events of the CalDAV calendar collection at `url`, through vdirsyncer's caldav storage."""
    storage = {"type": "caldav", "url": url, "username": username, "password": password}
    return _read({"calendar": storage}, work)["calendar"]


def _read(remotes: Mapping[str, Mapping[str, str]], work: Path) -> dict[str, list[KhalEvent]]:
    tools_ready()
    work.mkdir(parents=True, exist_ok=True)
    keys = {name: f"c{n:04d}" for n, name in enumerate(remotes)}
    vdirsyncer_config, khal_config = work / "vdirsyncer.conf", work / "khal.conf"
    vdirsyncer_config.write_text(_vdirsyncer_config(remotes, keys, work), encoding="utf-8")
    khal_config.write_text(_khal_config(keys.values(), work), encoding="utf-8")
    for command in ("discover", "sync"):
        _run([str(VDIRSYNCER), "-v", "WARNING", "-c", str(vdirsyncer_config), command], f"vdirsyncer {command}")
    log = work / "khal.log"
    listing = _run(
        [str(KHAL), "-v", "WARNING", "-l", str(log), "-c", str(khal_config), "list", "--day-format", ""]
        + [arg for field in FIELDS for arg in ("--json", field)]
        + [FIRST_DAY, LAST_DAY],
        "khal list",
    )
    if logged := log.read_text(encoding="utf-8") if log.exists() else "":
        pytest.fail(f"khal warned: {logged.strip()}")
    found = _rows(listing)
    originals = _original_uids(work)
    return {
        name: sorted(
            {
                KhalEvent(originals.get(row["uid"], row["uid"]), *_instants(row), *_texts(row))
                for row in found
                if row["calendar"] == key
            },
            key=lambda e: (e.uid, str(e.start)),
        )
        for name, key in keys.items()
    }


def _vdirsyncer_config(remotes: Mapping[str, Mapping[str, str]], keys: Mapping[str, str], work: Path) -> str:
    lines = ["[general]", f"status_path = {json.dumps(str(work / 'status'))}"]
    for name, remote in remotes.items():
        key = keys[name]
        (work / "vdir" / key).mkdir(parents=True, exist_ok=True)
        lines += [
            f"[pair {key}]",
            f'a = "{key}_remote"',
            f'b = "{key}_local"',
            "collections = null",
            'conflict_resolution = "a wins"',
            f"[storage {key}_remote]",
            *(f"{option} = {json.dumps(value)}" for option, value in remote.items()),
            f"[storage {key}_local]",
            'type = "filesystem"',
            f"path = {json.dumps(str(work / 'vdir' / key))}",
            'fileext = ".ics"',
        ]
    return "\n".join(lines) + "\n"


def _khal_config(keys: Iterable[str], work: Path) -> str:
    calendars = [f"[[{key}]]\npath = {work / 'vdir' / key}\ntype = calendar" for key in keys]
    return (
        "\n".join(
            [
                "[calendars]",
                *calendars,
                "[sqlite]",
                f"path = {work / 'khal.db'}",
                "[locale]",
                "local_timezone = UTC",
                "default_timezone = UTC",
                "timeformat = %H:%M",
                "dateformat = %Y-%m-%d",
                "longdateformat = %Y-%m-%d",
                "datetimeformat = %Y-%m-%dT%H:%M:%S",
                "longdatetimeformat = %Y-%m-%dT%H:%M:%S",
            ]
        )
        + "\n"
    )


def _run(command: list[str], what: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0 or done.stderr.strip():
        pytest.fail(f"{what} (exit {done.returncode}): {done.stderr.strip()}")
    return done.stdout


def _rows(listing: str) -> list[dict[str, str]]:
    """khal prints one JSON array per day; a multi-day event is in each of its days' arrays."""
    rows: list[dict[str, str]] = []
    for line in listing.splitlines():
        try:
            day = json.loads(line)
        except json.JSONDecodeError:
            pytest.fail(f"khal printed something other than its listing: {line}")
        rows.extend(day)
    return rows


def _original_uids(work: Path) -> dict[str, str]:
    """{UID vdirsyncer gave the item: the source's UID}, from the hook's line in each vdir file."""
    found = {}
    for item in (work / "vdir").glob("*/*.ics"):
        lines = item.read_text(encoding="utf-8").replace("\r\n ", "").replace("\n ", "").splitlines()
        uids = [line.split(":", 1)[1] for line in lines if line.startswith("UID:")]
        kept = [line.split(":", 1)[1] for line in lines if line.startswith(f"{ORIGINAL_UID}:")]
        if uids and kept:
            found[uids[0]] = kept[0]
    return found


def _instants(row: Mapping[str, str]) -> tuple[datetime | date, datetime | date]:
    if row["all-day"] == "True":
        # khal shows an all-day event's last day; RFC 5545's DTEND is the day after it.
        return date.fromisoformat(row["start-long"]), date.fromisoformat(row["end-long"]) + timedelta(days=1)
    start, end = (datetime.fromisoformat(row[key]).replace(tzinfo=UTC) for key in ("start-long", "end-long"))
    return start, end


def _texts(row: Mapping[str, str]) -> tuple[str, str, str, str]:
    return row["title"], row["location"], row["description"], row["url"]
