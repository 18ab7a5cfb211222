"""The CalDAV servers real calendars run on, started from ../shared/caldav-servers: sabre/dav 4.7
(Nextcloud's and Baikal's engine), Cyrus 3.6 (Fastmail's) and SOGo 5.8. Each start script prints a
JSON line (base, calendar home, principal, credentials); the stop script ends exactly what it
started. A test makes its own calendar with `new_calendar()`."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest

from tests.helpers.paths import SHARED

SCRIPTS = SHARED / "caldav-servers"
KINDS = ("sabre", "cyrus", "sogo")


@dataclass(frozen=True)
class SharedServer:
    kind: str
    info: dict[str, Any]

    @property
    def username(self) -> str:
        return str(self.info["username"])

    @property
    def password(self) -> str:
        return str(self.info["password"])

    @property
    def base(self) -> str:
        """The server's DAV root, where discovery starts."""
        return str(self.info["base"])

    @property
    def home(self) -> str:
        """The user's calendar home, an absolute URL."""
        home = str(self.info["home"])
        return home if home.startswith("http") else f"http://127.0.0.1:{self.info['port']}{home}"

    def new_calendar(self) -> str:
        url = f"{self.home.rstrip('/')}/{uuid.uuid4().hex[:12]}/"
        self.request("MKCALENDAR", url)
        return url

    def request(self, method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None) -> int:
        """A raw request as another client (the owner's app): no preconditions unless given."""
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode()
        sent = Request(
            url, data=body or None, method=method, headers={"Authorization": f"Basic {token}", **(headers or {})}
        )
        with urlopen(sent, timeout=30) as answer:
            return int(answer.status)


def start(kind: str, workdir: Path) -> SharedServer:
    """Start one server in `workdir` (made fresh), or skip (fail on CI) when it is not installed."""
    if not (SCRIPTS / kind / "start.sh").is_file():
        reason = f"{SCRIPTS} is not beside the repository"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    done = subprocess.run(
        ["bash", str(SCRIPTS / kind / "start.sh"), str(workdir)], capture_output=True, text=True, timeout=180
    )
    if done.returncode != 0:
        reason = f"{kind} did not start: {done.stderr.strip().splitlines()[-1:] or done.returncode}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return SharedServer(kind, json.loads(done.stdout.strip().splitlines()[-1]))


def stop(server: SharedServer) -> None:
    subprocess.run(
        ["bash", str(SCRIPTS / server.kind / "stop.sh"), str(server.info["workdir"])], timeout=60, check=False
    )
