"""A directory served by Python's http.server, as a static host serves a `confcal build`: plain
files, no headers of confcal's own."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


@contextmanager
def static_host(site: Path, port: int) -> Iterator[str]:
    """http.server on loopback at `port` serving `site`, until it answers; its URL, stopped after."""
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "--directory", str(site), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # up to ~30 s on a busy machine; not a timing assertion
            try:
                httpx.get(url + "/", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
