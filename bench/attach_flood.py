"""Attaches to a calendar server that drips its answers, and what every other route feels meanwhile.

    python bench/attach_flood.py                   # 60 attaches, the demo conference
    python bench/attach_flood.py --attaches 120 --samples 400

`confcal serve` (one process, as users run it) gets `--attaches` concurrent
`POST api/picks/{token}/caldav`, each naming a calendar on a local server that sends one byte of
its answer every half second and never finishes. While they are under way, the other routes
(`/healthz`, `/`, `/api/sessions`, a personal feed, saving a pick set) are asked in turn
`--samples` times, one at a time; the median, 99th percentile and worst of their answers are
printed, with the attaches' statuses (502: the probe's deadline; 503: every check thread busy;
429: the address's or pick set's limit). CPU time of the server beside wall, the machine is shared.
"""

from __future__ import annotations

import argparse
import collections
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from asgi_servers import cpu_seconds

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the dripping server is the tests' own (tests/helpers/drip_server.py)
from tests.helpers.drip_server import dripping_server  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "CONFCAL_CALDAV_ALLOW_PRIVATE": "1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attaches", type=int, default=60)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with dripping_server() as dripping, tempfile.TemporaryDirectory() as work, socket.socket() as probe:
        calendar = dripping.url
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
        log = open(Path(work) / "serve.log", "wb")
        server = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--db", f"{work}/store.sqlite", "--port", str(port)],
            env=ENV,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            with httpx.Client(base_url=base, timeout=120) as client:
                tokens = [
                    client.post("/api/picks", json={"sessions": []}).json()["token"] for _ in range(args.attaches)
                ]
                statuses: collections.Counter[int] = collections.Counter()

                def attach(token: str) -> None:
                    body = {"url": calendar, "username": "alice", "password": "secret"}
                    statuses[client.post(f"/api/picks/{token}/caldav", json=body).status_code] += 1

                flood = [threading.Thread(target=attach, args=(t,)) for t in tokens]
                cpu_before, wall_before = cpu_seconds(server.pid), time.perf_counter()
                for thread in flood:
                    thread.start()
                time.sleep(1.0)  # the flood is in
                paths = ["/healthz", "/", "/api/sessions", f"/p/{tokens[0]}.ics"]
                labels = {p: p for p in paths} | {f"/p/{tokens[0]}.ics": "/p/{token}.ics"}
                times: dict[str, list[float]] = {labels[p]: [] for p in paths} | {"PUT /api/picks/{token}": []}
                with httpx.Client(base_url=base, timeout=120) as other:
                    for n in range(args.samples):
                        started = time.perf_counter()
                        if n % 5 == 4:
                            other.put(f"/api/picks/{tokens[1]}", json={"sessions": []})
                            times["PUT /api/picks/{token}"].append(time.perf_counter() - started)
                        else:
                            path = paths[n % 5]
                            other.get(path)
                            times[labels[path]].append(time.perf_counter() - started)
                for thread in flood:
                    thread.join()
                wall, cpu = time.perf_counter() - wall_before, cpu_seconds(server.pid) - cpu_before
        finally:
            server.terminate()
            server.wait(10)
            log.close()
    everything = sorted(t for ts in times.values() for t in ts)
    p99 = everything[max(0, int(len(everything) * 0.99) - 1)]
    print(f"attaches: {dict(sorted(statuses.items()))} in {wall:.1f} s wall, {cpu:.2f} s server CPU")
    for name, ts in times.items():
        ts.sort()
        print(f"  {name:<28} median {statistics.median(ts) * 1000:7.1f} ms   worst {ts[-1] * 1000:7.1f} ms")
    print(f"other routes during the flood: p99 {p99 * 1000:.1f} ms over {len(everything)} requests")


if __name__ == "__main__":
    main()
