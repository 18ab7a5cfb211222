"""What a server process loads to start (server.app.factory): not the job queue nor the CalDAV
client, which it loads when a calendar first needs them (issue 12: serve start)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_a_server_process_starts_without_the_job_queue_or_the_caldav_client() -> None:
    code = (
        "import sys, server.app.factory; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('huey', 'peewee', 'psycopg', 'httpx', 'httpcore') "
        "or m in ('server.caldav.dav', 'server.caldav.service')))"
    )

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)

    assert done.stdout.strip() == "[]"
