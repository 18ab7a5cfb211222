"""`confcal serve` against the ceiling (issue 12): the same bytes from a minimal Starlette app
(bench/ceiling_app.py) on granian and on uvicorn (uvloop, httptools), one worker each.

    python bench/serve_bench.py --sessions 2000          # generate and ingest a conference first
    python bench/serve_bench.py --db STORE               # an ingested store
    python bench/serve_bench.py --db STORE --seconds 5 --rounds 3 --personal 1000

Each case with wrk (1 thread, 32 connections, no Accept-Encoding, as a calendar app's poll
without gzip): all.ics in full and as 304 (If-None-Match with its ETag), `--personal` personal
feeds (pick sets of 12 sessions made through the API) in rotation, in full and as 304, and every
other kind of route once (`route_bodies`: the schedule page, a day's, a session's and a
speaker's page, a download, a track's feed, the sessions API, schedule.xml), and the schedule
page and a session's page asked with a query string not asked before at each request.
`confcal serve` runs as users run it, access log on (written to a file), Host allow list on.
All servers stay up and the runs are interleaved round by round, so a change in the machine's
load hits every server alike; the median round is shown, with requests per CPU second of the
server's processes (its own CPU time, from /proc), the steadier figure on a shared machine.
Last, the CPU `confcal serve` spends a second while idle, holding the personal feeds' pick sets.
`run.py` calls `compare` for its serve figures.
"""

from __future__ import annotations

import argparse
import importlib.util
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

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CONFCAL = [sys.executable, "-m", "server.cli"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
IDENTITY = {"accept-encoding": "identity"}
CEILINGS = ("granian", "uvicorn")
IDLE_S = 5.0


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start(command: list[str], ready: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    out = open(log, "wb") if log is not None else subprocess.DEVNULL  # noqa: SIM115 - the child keeps it
    process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=ENV)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(ready, headers=IDENTITY, timeout=30).status_code == 200:
                return process
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"{' '.join(command)} never answered {ready}")


def wrk(
    url: str, pid: int, seconds: int, *, headers: dict[str, str] | None = None, script: Path | None = None
) -> tuple[float, float]:
    """(requests per second, requests per CPU second of `pid` and its children)."""
    command = ["wrk", "-t1", "-c32", f"-d{seconds}s"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if script is not None:
        command += ["-s", str(script)]
    before = cpu_seconds(pid)
    out = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    used = cpu_seconds(pid) - before
    done = next(int(line.split()[0]) for line in out.splitlines() if " requests in " in line)
    non_2xx = next((int(line.split()[-1]) for line in out.splitlines() if "Non-2xx" in line), 0)
    if non_2xx and "304" not in url and headers is None and script is None:
        raise SystemExit(f"{url}: {non_2xx} answers were not 2xx")
    rate = float(next(line for line in out.splitlines() if line.startswith("Requests/sec:")).split()[1])
    return rate, done / used if used else float("nan")


def new_queries(work: Path, path: str) -> Path:
    """A wrk script asking for `path` with a query string not asked before at each request (a
    campaign or click tag, which the pages ignore), as links shared to many visitors are asked:
    a bench repeating one URL sees only the answer noted for it."""
    script = work / f"new-queries{path.replace('/', '-')}.lua"
    script.write_text(
        f'n = 0\nrequest = function()\n  n = n + 1\n  return wrk.format("GET", "{path}?utm_source=" .. n)\nend\n'
    )
    return script


def personal_feeds(url: str, work: Path, bodies: Path, count: int) -> tuple[Path, Path]:
    """Create `count` pick sets; write their feeds under `bodies` (for the ceiling) and the two
    wrk scripts (full, 304) that rotate through them."""
    ids = [s["id"] for s in httpx.get(url + "/api/sessions", timeout=60).json()["sessions"]]
    paths, etags = [], []
    (bodies / "p").mkdir(parents=True, exist_ok=True)
    with httpx.Client(base_url=url, timeout=30) as client:
        for i in range(count):
            picks = ids[(i * 13) % len(ids) :][:12] or ids[:12]
            token = client.post("/api/picks", json={"sessions": picks}).json()["token"]
            # Identity, as wrk asks: the gzip variant has its own ETag, which would never match.
            reply = client.get(f"/p/{token}.ics", headers=IDENTITY)
            (bodies / "p" / f"{token}.ics").write_bytes(reply.content)
            paths.append(f"/p/{token}.ics")
            etags.append(reply.headers["etag"])
    lua_paths = ",".join(f'"{p}"' for p in paths)
    lua_tags = ",".join("'" + e + "'" for e in etags)
    full, cond = work / "personal.lua", work / "personal304.lua"
    rotate = "i = 0\nrequest = function()\n  i = i % #paths + 1\n"
    full.write_text(f"paths = {{{lua_paths}}}\n{rotate}  return wrk.format('GET', paths[i])\nend\n")
    cond.write_text(
        f"paths = {{{lua_paths}}}\netags = {{{lua_tags}}}\n{rotate}"
        "  return wrk.format('GET', paths[i], {['If-None-Match'] = etags[i]})\nend\n"
    )
    return full, cond


def route_bodies(url: str, bodies: Path) -> dict[str, str]:
    """The other routes compared (the schedule page, a day's page, a session's page and download,
    a speaker's page, a track's feed, the sessions API and schedule.xml): their paths by name,
    their bytes written under `bodies` for the ceiling."""
    sessions = httpx.get(url + "/api/sessions", timeout=60).json()["sessions"]
    feeds = httpx.get(url + "/api/feeds", timeout=60).json()["feeds"]
    first = sessions[len(sessions) // 2]
    track = next(f["url"] for f in feeds if "/track/" in f["url"])
    page = httpx.get(url + "/", headers=IDENTITY, timeout=60).text
    day = next((part.split('"')[0] for part in page.split('href="')[1:] if part.startswith("days/")), "")
    speaker = next((part.split('"')[0] for part in page.split('href="')[1:] if part.startswith("speakers/")), "")
    found = {
        "schedule page": "/",
        "day page": "/" + day,
        "session page": "/" + first["ics"].split("://", 1)[-1].split("/", 1)[-1].removesuffix(".ics") + "/",
        "session .ics": "/" + first["ics"].split("://", 1)[-1].split("/", 1)[-1],
        "track feed": "/" + track.split("://", 1)[-1].split("/", 1)[-1],
        "api/sessions": "/api/sessions",
        "schedule.xml": "/schedule.xml",
    }
    if speaker:
        found["speaker page"] = "/" + speaker
    for name, path in list(found.items()):
        reply = httpx.get(url + path, headers=IDENTITY, timeout=60)
        if reply.status_code != 200:
            del found[name]  # not a route of this conference (no day pages for a one-day event)
            continue
        target = bodies / (path.lstrip("/") + ("index.html" if path.endswith("/") else ""))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(reply.content)
    return found


def ensure_tools() -> None:
    """wrk from Debian, and the ceiling's servers from PyPI, installed when missing."""
    if shutil.which("wrk") is None:
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)
    if importlib.util.find_spec("granian") is None:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "granian", "uvloop", "httptools"], check=True)


def compare(db: str, work: Path, *, seconds: int = 8, rounds: int = 1, personal: int = 1000) -> dict[str, float]:
    """Print and return every serve figure: req/s, req per CPU-s and the ratios to each ceiling."""
    ensure_tools()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # Pick sets from one address: past the default creation burst (60).
    app = start(
        [*CONFCAL, "serve", "--db", db, "--port", str(port), "--no-jobs", "--pick-burst", str(personal + 100)],
        url + "/feeds/all.ics",
        log=work / "serve.log",
    )
    ceilings: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    try:
        feed = httpx.get(url + "/feeds/all.ics", headers=IDENTITY, timeout=60)
        bodies = work / "ceiling"
        (bodies / "feeds").mkdir(parents=True, exist_ok=True)
        (bodies / "feeds" / "all.ics").write_bytes(feed.content)
        routes = route_bodies(url, bodies)
        lua_full, lua_304 = personal_feeds(url, work, bodies, personal)
        etag = {"If-None-Match": feed.headers["etag"]}
        for server in CEILINGS:
            cport = free_port()
            curl = f"http://127.0.0.1:{cport}"
            command = [
                sys.executable,
                str(BENCH / "ceiling_app.py"),
                "--server",
                server,
                "--port",
                str(cport),
                str(bodies),
            ]
            ceilings[server] = (start(command, curl + "/feeds/all.ics"), curl)
        session_page = routes["session page"]
        cases: dict[str, dict[str, object]] = {
            "all.ics": {"path": "/feeds/all.ics"},
            "all.ics 304": {"path": "/feeds/all.ics", "headers": etag},
            "personal": {"path": "/", "script": lua_full},
            "personal 304": {"path": "/", "script": lua_304},
            **{name: {"path": path} for name, path in routes.items()},
            "schedule page, new query": {"path": "/", "script": new_queries(work, "/")},
            "session page, new query": {"path": session_page, "script": new_queries(work, session_page)},
        }
        targets = {"confcal": (app, url), **ceilings}
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(rounds):
            for case, spec in cases.items():
                for name, (process, base) in targets.items():
                    result = wrk(
                        base + str(spec["path"]),
                        process.pid,
                        seconds,
                        headers=spec.get("headers"),  # type: ignore[arg-type]
                        script=spec.get("script"),  # type: ignore[arg-type]
                    )
                    runs.setdefault((name, case), []).append(result)
        # What the server spends with nothing asked, holding every personal feed's pick set: the
        # version poll, the pick cache's refresh (issue 12: re-reading 1,000 sets took 16 ms/s).
        before = cpu_seconds(app.pid)
        time.sleep(IDLE_S)
        idle_ms = 1000 * (cpu_seconds(app.pid) - before) / IDLE_S
    finally:
        for process in (app, *(p for p, _ in ceilings.values())):
            process.terminate()
            process.wait(timeout=30)
    figures: dict[str, float] = {}
    median = {key: (statistics.median(r for r, _ in v), statistics.median(c for _, c in v)) for key, v in runs.items()}
    print(
        f"serve: all.ics {len(feed.content)} bytes, {personal} personal feeds, {rounds} round(s) of {seconds} s, median"
    )
    print(f"  serve idle, {personal} pick sets kept: {idle_ms:.1f} ms of CPU a second")
    figures["serve idle ms/s"] = idle_ms
    for case in cases:
        rate, per_cpu = median[("confcal", case)]
        figures[f"serve {case} req/s"] = rate
        line = f"  serve {case:<13} {rate:7.0f} req/s {per_cpu:7.0f} req/CPU-s"
        for server in CEILINGS:
            their_rate, their_cpu = median[(server, case)]
            figures[f"serve {case} / {server}"] = rate / their_rate
            line += f" | {server} {their_rate:7.0f} req/s {their_cpu:7.0f} req/CPU-s ratio {rate / their_rate:.2f} (CPU {per_cpu / their_cpu:.2f})"
        print(line)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="an ingested store (default: generate --sessions)")
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--personal", type=int, default=1000, help="personal feeds (pick sets) to rotate through")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory(prefix="confcal-serve-bench-") as tmp:
        work = Path(tmp)
        db = args.db
        if db is None:
            db = str(work / "store.sqlite")
            subprocess.run(
                [sys.executable, str(BENCH / "generate.py"), "--sessions", str(args.sessions), str(work / "pages")],
                check=True,
            )
            subprocess.run(
                [*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "pages")],
                check=True,
                env=ENV,
                capture_output=True,
            )
        compare(db, work, seconds=args.seconds, rounds=args.rounds, personal=args.personal)
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
