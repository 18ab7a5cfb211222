"""Which ASGI server `confcal serve` should run on: confcal's app and the ceiling app
(bench/ceiling_app.py) on granian and on uvicorn (uvloop, httptools), one worker each (issue 12).

    python bench/asgi_servers.py [--db STORE] [--seconds 8] [--rounds 2]

For each server and app: wrk (1 thread, 32 connections) on all.ics in full and as 304, giving
requests per second and requests per CPU second of the server's processes (its own time, all
threads and child processes, read from /proc before and after): on a machine shared with other
work the second figure is the steadier one. confcal's app is built as `confcal serve` builds it
(bench/serve_app.py: its logging with the access log on, the Host allow list); without --db it
serves the demo conference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system time of `pid` and of every live process below it."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / TICKS
        todo.extend(children.get(current, []))
    return total


def wrk(url: str, pid: int, seconds: int, headers: dict[str, str]) -> tuple[float, float]:
    """(requests per second, requests per CPU second of `pid`'s processes)."""
    command = ["wrk", "-t1", "-c32", f"-d{seconds}s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    before = cpu_seconds(pid)
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    used = cpu_seconds(pid) - before
    done = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    return rate, done / used if used else float("nan")


def start(command: list[str], env: dict[str, str], url: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(1200):
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    raise SystemExit(f"{' '.join(command)} never answered {url}")


def commands(server: str, module: str, port: int, log_config: Path) -> list[str]:
    """Each server applies confcal's logging configuration (serve's, access log on) itself, as
    `confcal serve` has uvicorn do: a configuration applied by the app at import would be
    replaced by the server's own."""
    return server_command(server, module, port, ["--log-config", str(log_config)])


def server_command(server: str, module: str, port: int, logging: list[str]) -> list[str]:
    """`module` on `server` (granian, or uvicorn with uvloop and httptools), one worker on
    127.0.0.1:`port`, with `logging`'s flags (both servers take the same ones): the one command
    line of each server every benchmark here starts."""
    if server == "granian":
        return [
            # Through this interpreter, as uvicorn below: a venv's scripts are not on PATH
            # unless it is activated.
            *(sys.executable, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1", "--port", str(port)),
            *("--workers", "1", "--no-ws", "--loop", "uvloop", *logging, module),
        ]
    return [
        *(sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port)),
        *("--workers", "1", "--no-access-log", *logging, "--loop", "uvloop", "--http", "httptools", module),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="store to serve (default: a new one with the demo)")
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="confcal-asgi-"))
    db = args.db or str(work / "store.sqlite")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{BENCH}", "CONFCAL_DB": db, "CEILING_BODIES": str(work / "bodies")}
    port = 19300
    sys.path.insert(0, str(ROOT))
    from server.logs import log_config as serve_log_config

    log_config = work / "logging.json"
    log_config.write_text(json.dumps(serve_log_config()), encoding="utf-8")
    results: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for round_ in range(args.rounds):
        for server in ("granian", "uvicorn"):
            for app in ("confcal", "ceiling"):
                port += 1
                url = f"http://127.0.0.1:{port}/feeds/all.ics"
                module = "serve_app:app" if app == "confcal" else "ceiling_app:app"
                process = start(commands(server, module, port, log_config), env, url)
                try:
                    reply = httpx.get(url, headers={"accept-encoding": "identity"}, timeout=30)
                    if app == "confcal" and round_ == 0 and server == "granian":
                        (work / "bodies" / "feeds").mkdir(parents=True, exist_ok=True)
                        (work / "bodies" / "feeds" / "all.ics").write_bytes(reply.content)
                    for case, headers in (("full", {}), ("304", {"If-None-Match": reply.headers["etag"]})):
                        results.setdefault((server, app, case), []).append(wrk(url, process.pid, args.seconds, headers))
                finally:
                    process.terminate()
                    process.wait(timeout=30)
    print(
        f"all.ics {len((work / 'bodies' / 'feeds' / 'all.ics').read_bytes())} bytes, "
        f"{args.rounds} rounds of {args.seconds} s; best round of each:"
    )
    for (server, app, case), runs in sorted(results.items()):
        rate, per_cpu = max(r for r, _ in runs), max(c for _, c in runs)
        print(f"  {server:<8} {app:<8} {case:<5} {rate:9.0f} req/s  {per_cpu:9.0f} req/CPU-s")
    for server in ("granian", "uvicorn"):
        for case in ("full", "304"):
            ours, ceiling = results[(server, "confcal", case)], results[(server, "ceiling", case)]
            print(
                f"  ratio on {server} {case}: {max(r for r, _ in ours) / max(r for r, _ in ceiling):.2f} "
                f"(per CPU second {max(c for _, c in ours) / max(c for _, c in ceiling):.2f})"
            )


if __name__ == "__main__":
    main()
