"""Requests per second through nginx with deploy/nginx, proxying `confcal serve`, against the same
nginx serving the same feed bytes from disk (issue 13's goal: at least 0.8x).

    python bench/nginx_bench.py                    # the demo conference
    python bench/nginx_bench.py --sessions 10000   # a generated conference (bench/generate.py)

Runs (median of interleaved rounds, with requests per CPU second of nginx and confcal together,
the steadier figure on a shared machine), each with wrk (1 thread, 32 connections, identity encoding), for /feeds/all.ics and for its
304 (If-None-Match with the answer's own ETag), and for `--personal` personal feeds in rotation
(pick sets made through the app, their bytes written as files for the static setup), in full and
as 304: nginx proxying confcal with deploy/nginx's
confcal-locations.conf (micro-cache included, as deployed), the same nginx serving the file with
confcal-static-locations.conf, and confcal without nginx for reference. nginx runs one worker
process in both setups. Needs Debian's nginx and wrk (`apt-get install nginx wrk`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from asgi_servers import cpu_seconds

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy" / "nginx"
CONFCAL = [sys.executable, "-m", "server.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
BASE_URL = "http://bench.test"
# What wrk sends: no Accept-Encoding, so the identity variant and its ETag.
IDENTITY = {"Accept-Encoding": "identity"}


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, headers=IDENTITY, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def wrk(
    url: str, headers: dict[str, str] | None, seconds: int, pids: tuple[int, ...], script: Path | None = None
) -> tuple[float, float]:
    """(requests per second, requests per CPU second of `pids` and their children: nginx and
    confcal, both counted for every run, since a proxied request costs in both)."""
    command = ["wrk", "-t1", "-c32", f"-d{seconds}s"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if script is not None:
        command += ["-s", str(script)]
    before = sum(cpu_seconds(pid) for pid in pids)
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    used = sum(cpu_seconds(pid) for pid in pids) - before
    done = next(int(line.split()[0]) for line in out.splitlines() if " requests in " in line)
    rate = float(next(line for line in out.splitlines() if line.startswith("Requests/sec:")).split()[1])
    return rate, done / used if used else float("nan")


def personal_feeds(direct: str, static: str, work: Path, count: int) -> dict[str, Path]:
    """`count` pick sets made through the app, their feeds written under `work/static/p/` for
    nginx to serve as files, and the wrk scripts rotating through them: in full, and as 304
    with the app's ETags (proxied) or the files' (static)."""
    ids = [s["id"] for s in httpx.get(direct + "/api/sessions", timeout=60).json()["sessions"]]
    (work / "static" / "p").mkdir(parents=True, exist_ok=True)
    paths, app_tags = [], []
    with httpx.Client(base_url=direct, timeout=30) as client:
        for i in range(count):
            picks = ids[(i * 13) % len(ids) :][:12] or ids[:12]
            token = client.post("/api/picks", json={"sessions": picks}).json()["token"]
            reply = client.get(f"/p/{token}.ics", headers=IDENTITY)
            (work / "static" / "p" / f"{token}.ics").write_bytes(reply.content)
            paths.append(f"/p/{token}.ics")
            app_tags.append(reply.headers["etag"])
    file_tags = [httpx.head(static + path, headers=IDENTITY).headers["etag"] for path in paths]
    listed = ",".join(f'"{p}"' for p in paths)
    rotate = f"paths = {{{listed}}}\ni = 0\nrequest = function()\n  i = i % #paths + 1\n"
    scripts = {"full": work / "personal.lua"}
    scripts["full"].write_text(rotate + "  return wrk.format('GET', paths[i])\nend\n")
    for name, tags in (("app 304", app_tags), ("file 304", file_tags)):
        listed_tags = ",".join("'" + t + "'" for t in tags)
        scripts[name] = work / f"personal-{name.replace(' ', '-')}.lua"
        scripts[name].write_text(
            f"etags = {{{listed_tags}}}\n{rotate}"
            "  return wrk.format('GET', paths[i], {['If-None-Match'] = etags[i]})\nend\n"
        )
    return scripts


def nginx_conf(
    work: Path, proxy_port: int, static_port: int, upstream: int, static_root: Path, locations: Path, sendfile: bool
) -> Path:
    temps = "\n".join(f"  {n}_temp_path {work / n};" for n in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user root root;" if os.geteuid() == 0 else ""
    # Debian's /etc/nginx/nginx.conf, which a deployed nginx runs with, turns these on.
    debian = "\n  sendfile on;\n  tcp_nopush on;" if sendfile else ""
    conf = work / "nginx.conf"
    conf.write_text(
        f"""{user}
daemon off;
worker_processes 1;
pid {work / "nginx.pid"};
error_log {work / "error.log"} warn;
events {{ worker_connections 1024; }}
http {{
  include /etc/nginx/mime.types;
  access_log off;{debian}
{temps}
  proxy_cache_path {work / "cache"} levels=1:2 keys_zone=confcal:10m max_size=100m inactive=10m use_temp_path=off;
  proxy_cache_path {work / "personal"} levels=1:2 keys_zone=confcal_personal:10m max_size=100m inactive=1m use_temp_path=off;
  include {DEPLOY / "confcal-http.conf"};
  upstream confcal {{ server 127.0.0.1:{upstream}; keepalive 32; }}
  server {{ listen 127.0.0.1:{proxy_port}; include {locations}; }}
  server {{
    listen 127.0.0.1:{static_port};
    root {static_root};
    include {DEPLOY / "confcal-static-locations.conf"};
  }}
}}
""",
        encoding="utf-8",
    )
    return conf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=0, help="generated conference size (default: the demo)")
    parser.add_argument("--workers", type=int, default=1, help="confcal serve --workers (default: 1)")
    parser.add_argument("--seconds", type=int, default=8, help="length of each wrk run (default: 8)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of all runs, interleaved; the median is shown (default: 3)"
    )
    parser.add_argument("--personal", type=int, default=200, help="personal feeds to rotate through (default: 200)")
    parser.add_argument(
        "--only", choices=["200", "304", "personal", "personal 304"], action="append", help="these comparisons alone"
    )
    parser.add_argument(
        "--locations",
        type=Path,
        default=DEPLOY / "confcal-locations.conf",
        help="the proxy's locations (default: deploy/nginx's; a variant to try one)",
    )
    parser.add_argument(
        "--no-sendfile",
        action="store_true",
        help="without Debian's sendfile and tcp_nopush (as the earlier rounds measured)",
    )
    args = parser.parse_args()
    if not args.locations.is_file():
        raise SystemExit(f"{args.locations}: no such file")
    shown = args.only or ["200", "304", "personal", "personal 304"]
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    with tempfile.TemporaryDirectory(prefix="confcal-nginx-bench-") as tmp:
        work = Path(tmp)
        db = str(work / "store.sqlite")
        if args.sessions:
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "bench" / "generate.py"),
                    "--sessions",
                    str(args.sessions),
                    str(work / "pages"),
                ],
                check=True,
                env=ENV,
            )
            subprocess.run(
                [*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "pages")],
                check=True,
                env=ENV,
                capture_output=True,
            )
        app_port, proxy_port, static_port = free_port(), free_port(), free_port()
        serve = [*CONFCAL, "serve", "--db", db, "--port", str(app_port), "--no-jobs", "--base-url", BASE_URL]
        serve += ["--workers", str(args.workers), "--log-level", "warning", "--pick-burst", str(args.personal + 100)]
        if not args.sessions:
            serve.append("--demo")
        app = subprocess.Popen(serve, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proxy = static = None
        try:
            direct = f"http://127.0.0.1:{app_port}/feeds/all.ics"
            wait_for(direct)
            feed = httpx.get(direct, headers=IDENTITY)
            (work / "static" / "feeds").mkdir(parents=True)
            (work / "static" / "feeds" / "all.ics").write_bytes(feed.content)
            conf = nginx_conf(
                work, proxy_port, static_port, app_port, work / "static", args.locations.resolve(), not args.no_sendfile
            )
            proxy = subprocess.Popen(
                [nginx, "-p", str(work), "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            proxied, static = (
                f"http://127.0.0.1:{proxy_port}/feeds/all.ics",
                f"http://127.0.0.1:{static_port}/feeds/all.ics",
            )
            wait_for(proxied)
            wait_for(static)
            base = f"http://127.0.0.1:{app_port}"
            scripts = personal_feeds(base, f"http://127.0.0.1:{static_port}", work, args.personal)
            app_etag = {"If-None-Match": feed.headers["etag"]}
            file_etag = {"If-None-Match": httpx.get(static, headers=IDENTITY).headers["etag"]}
            assert httpx.get(proxied, headers={**IDENTITY, **app_etag}).status_code == 304
            assert httpx.get(static, headers={**IDENTITY, **file_etag}).status_code == 304
            proxy_root, static_root = f"http://127.0.0.1:{proxy_port}/", f"http://127.0.0.1:{static_port}/"
            runs: dict[str, tuple[str, dict[str, str] | None, Path | None]] = {
                "nginx -> confcal 200": (proxied, None, None),
                "nginx file 200": (static, None, None),
                "nginx -> confcal 304": (proxied, app_etag, None),
                "nginx file 304": (static, file_etag, None),
                "confcal direct 200": (direct, None, None),
                "confcal direct 304": (direct, app_etag, None),
                "nginx -> confcal personal": (proxy_root, None, scripts["full"]),
                "nginx file personal": (static_root, None, scripts["full"]),
                "nginx -> confcal personal 304": (proxy_root, None, scripts["app 304"]),
                "nginx file personal 304": (static_root, None, scripts["file 304"]),
            }
            wanted = {f"nginx -> confcal {status}" for status in shown} | {f"nginx file {status}" for status in shown}
            runs = {n: run for n, run in runs.items() if n in wanted or (args.only is None and n.startswith("confcal"))}
            # Interleaved rounds, so a change in the machine's load hits every setup alike.
            pids = (proxy.pid, app.pid)
            rounds = [
                {name: wrk(url, h, args.seconds, pids, script) for name, (url, h, script) in runs.items()}
                for _ in range(args.rounds)
            ]
            figures = {name: statistics.median(r[name][0] for r in rounds) for name in runs}
            per_cpu = {name: statistics.median(r[name][1] for r in rounds) for name in runs}
        finally:
            for process in (proxy, app):
                if process is not None:
                    process.terminate()
                    process.wait(timeout=30)
    size = len(feed.content)
    print(f"/feeds/all.ics: {size} bytes ({args.sessions or 'demo'} sessions), confcal --workers {args.workers}")
    print(f"load average {os.getloadavg()[0]:.1f}; median of {args.rounds} rounds of {args.seconds} s")
    for name, value in figures.items():
        print(f"  {name:<22} {value:10.0f} req/s {per_cpu[name]:10.0f} req/CPU-s (nginx + confcal)")
    for status in shown:
        ratio = figures[f"nginx -> confcal {status}"] / figures[f"nginx file {status}"]
        cpu_ratio = per_cpu[f"nginx -> confcal {status}"] / per_cpu[f"nginx file {status}"]
        print(f"  proxied / file, {status}:  {ratio:.2f}x (per CPU second {cpu_ratio:.2f}x)")


if __name__ == "__main__":
    main()
