"""A second `confcal serve` on a port another serve listens on refuses to start with one line,
unless `--reuse-port` asks for the sharing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.helpers.serve_process import free_port, stop, wait_ready

ROOT = Path(__file__).resolve().parents[3]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def serve_command(db: Path, port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "server.cli", "serve", "--db", str(db), "--port", str(port), "--no-jobs", *extra]


@contextmanager
def serving(db: Path, port: int, *extra: str) -> Iterator[subprocess.Popen[bytes]]:
    """A `confcal serve` answering /healthz on `port`, stopped after."""
    process = subprocess.Popen(
        serve_command(db, port, *extra), env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_ready(process, f"http://127.0.0.1:{port}/healthz")
        yield process
    finally:
        stop(process)


def test_a_second_serve_on_a_port_in_use_refuses_to_start_with_one_line(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path / "first.sqlite", port):
        # Output into files, and a session of its own: a serve that did start has worker
        # processes holding its pipes, and all of them must be stopped.
        with (tmp_path / "out").open("wb") as out, (tmp_path / "err").open("wb") as err:
            second = subprocess.Popen(
                serve_command(tmp_path / "second.sqlite", port), env=ENV, stdout=out, stderr=err, start_new_session=True
            )
            try:
                second.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(second.pid, signal.SIGKILL)
                second.wait()
                pytest.fail("the second confcal serve started on the port in use")

    assert (second.returncode, (tmp_path / "out").read_text()) == (1, "")
    assert (tmp_path / "err").read_text() == (
        f"confcal serve: error: port {port} on 127.0.0.1 is already in use (another confcal serve?): stop it, "
        "choose another --port, or pass --reuse-port to share the port with it\n"
    )
    assert not (tmp_path / "second.sqlite").exists()


def test_reuse_port_shares_a_port_in_use_on_purpose(tmp_path: Path) -> None:
    port = free_port()
    with serving(tmp_path / "first.sqlite", port), serving(tmp_path / "second.sqlite", port, "--reuse-port") as second:
        for _ in range(300):  # the second serve seeds its own store before it listens
            if (tmp_path / "second.sqlite").exists() or second.poll() is not None:
                break
            time.sleep(0.1)
        answers = [httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code for _ in range(10)]
        running = second.poll() is None

    assert (answers, running, (tmp_path / "second.sqlite").exists()) == ([200] * 10, True, True)
