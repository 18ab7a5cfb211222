"""`confcal serve` as a real process on a free loopback port, and `confcal worker` processes, for
tests that need the real thing."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


@dataclass(frozen=True)
class Running:
    url: str
    db: str


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def confcal_command() -> list[str]:
    script = shutil.which("confcal")
    return [script] if script else [sys.executable, "-m", "server.cli"]


@contextmanager
def running_confcal(work: Path, *extra: str, db: str | None = None, ready: str = "/") -> Iterator[Running]:
    """Start `confcal serve` with a fresh store in `work` (or `db`), wait until `ready` answers 200,
    stop it after."""
    db, port = db or str(work / "store.sqlite"), free_port()
    log = (work / "serve.log").open("wb")
    process = subprocess.Popen(
        [*confcal_command(), "serve", "--db", db, "--port", str(port), *extra],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(process, url + ready, lambda: (work / "serve.log").read_text())
        yield Running(url, db)
    finally:
        stop(process)
        log.close()


@contextmanager
def serving_schedule(work: Path, source: Path) -> Iterator[Running]:
    """`confcal serve` on a store in `work` holding `source` alone (no demo), ingested by the CLI
    in a process of its own, as an organiser would."""
    db = str(work / "store.sqlite")
    subprocess.run([*confcal_command(), "ingest", "--db", db, "--quiet", str(source)], check=True, capture_output=True)
    with running_confcal(work, "--no-demo", db=db) as running:
        yield running


def wait_ready(process: subprocess.Popen[bytes], url: str, output: Callable[[], str] = lambda: "") -> None:
    """Until `url` answers 200; fails the test if the server exits first or never answers."""
    for _ in range(300):  # up to ~30 s on a busy machine; not a timing assertion
        if process.poll() is not None:
            pytest.fail(f"confcal serve exited: {output()}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail("confcal serve did not come up")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def running_worker(db: str, log: Path, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """A `confcal worker` on the store at `db` (output appended to `log`), stopped with SIGTERM
    after (one killed by the test is left as it is)."""
    with log.open("ab") as out:
        process = subprocess.Popen(
            [*confcal_command(), "worker", "--db", db, *extra], stdout=out, stderr=subprocess.STDOUT
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=60)
