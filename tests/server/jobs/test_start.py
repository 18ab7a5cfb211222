"""What `confcal serve`'s starting process loads for its jobs before it starts the server processes
(issue 12: serve start): not the source readers nor the CalDAV client, which the first refresh
and the first sync load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_the_jobs_start_without_the_source_readers_or_the_caldav_client() -> None:
    code = (
        "import sys, server.jobs.runner; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('httpx', 'httpcore') "
        "or m in ('feeds.pipeline', 'server.caldav.dav', 'server.caldav.service')))"
    )

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)

    assert done.stdout.strip() == "[]"
