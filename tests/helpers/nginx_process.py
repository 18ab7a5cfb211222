"""Debian's nginx as a real process on a free loopback port, configured with the files in deploy/nginx.

Skipped locally (failed on CI, where the test command installs it) when nginx is not installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.helpers.serve_process import free_port, stop

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "nginx"


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        reason = "nginx is not installed (tests/install-system-deps.sh installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def _main_conf(work: Path, http_block: str) -> str:
    # Everything nginx would write goes under `work`; the worker runs as the test's user so it can
    # read a build under pytest's private temp folder.
    temp = "\n".join(
        f"    {name}_temp_path {work / name};" for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root root;" if os.geteuid() == 0 else ""
    return f"""
{user}
daemon off;
worker_processes 1;
pid {work / "nginx.pid"};
error_log {work / "error.log"} warn;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {work / "access.log"};
{temp}
{http_block}
}}
"""


@contextmanager
def running_nginx(work: Path, http_block: str) -> Iterator[str]:
    """Start nginx with `http_block` (which must hold one server listening on {port}), yield its URL."""
    binary = nginx_binary()
    work.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = work / "nginx.conf"
    conf.write_text(_main_conf(work, http_block.replace("{port}", str(port))), encoding="utf-8")
    check = subprocess.run([binary, "-t", "-p", str(work), "-c", str(conf)], capture_output=True, text=True)
    if check.returncode != 0:
        pytest.fail(f"nginx -t refused the configuration:\n{check.stderr}")
    process = subprocess.Popen(
        [binary, "-p", str(work), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):  # bounded wait for the port, not a timing assertion
            if process.poll() is not None:
                pytest.fail(f"nginx exited: {(work / 'error.log').read_text(errors='replace')}")
            try:
                httpx.get(url + "/", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            pytest.fail("nginx did not come up")
        yield url
    finally:
        stop(process)
