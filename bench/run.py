"""Every figure of issue 12, measured on the whole commands a user runs.

    python bench/run.py --sessions 10000            # one size, with the wrk comparisons
    python bench/run.py --sessions 1000,10000,50000 --no-wrk   # how cost grows

For each size: generate a conference (bench/generate.py), `confcal ingest` it, `confcal build` it,
build the same feeds the obvious way (bench/obvious_build.py), move one session and time the
re-ingest and rebuild (and count the files whose bytes changed), start `confcal serve` and time its
first answer, ingest again and time until the server answers the new feed. With wrk (installed
with apt-get when missing): `confcal serve` against a minimal Starlette app serving the same bytes
on the fastest server measured (bench/ceiling_app.py), one worker each, for all.ics in full and as
304, and for 1,000 personal feeds. Peak memory of a command is the larger of its own maximum
resident set and the highest sum of proportional set sizes (PSS) of its process tree, sampled
every 20 ms: `confcal build` forks workers that share most of their memory with it.
Nothing here is a test: it prints figures.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import fs_floor
import httpx
import serve_bench
from asgi_servers import cpu_seconds

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CONFCAL = [sys.executable, "-m", "server.cli"]
# As installed: pip compiles the package's bytecode, so no command pays for compiling its modules
# (a development shell's PYTHONDONTWRITEBYTECODE would make every command compile them again).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(ROOT)}
IDENTITY = {"accept-encoding": "identity"}


@dataclass
class Run:
    seconds: float  # wall
    cpu: float  # the child's user + system time: what the ratios use on a shared machine
    peak_mib: float
    output: str


def compiled() -> None:
    """Compile confcal's bytecode before anything is timed, as `pip install` does."""
    packages = [str(ROOT / "feeds"), str(ROOT / "server")]
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *packages], env=ENV, check=True, stdout=subprocess.DEVNULL
    )


def measure(command: list[str]) -> Run:
    """Wall time, CPU time (its workers' included, wait4) and peak memory, for a whole command."""
    # What the commands before wrote goes to disk first: on ext4 their writeback (and the
    # discards of a tree deleted just before) otherwise lands in this command's time; two 10,000-
    # session builds of the same code measured 7.6 and 9.2 s, 2.6 s of system time apart.
    os.sync()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV)
    assert process.stdout is not None
    done = threading.Event()
    tree_peak = [0.0]
    sampler = threading.Thread(target=_sample_tree, args=(process.pid, done, tree_peak))
    sampler.start()
    output = process.stdout.read().decode(errors="replace")
    done.set()
    sampler.join()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    return Run(elapsed, usage.ru_utime + usage.ru_stime, max(usage.ru_maxrss / 1024, tree_peak[0]), output)


def _sample_tree(pid: int, done: threading.Event, peak: list[float]) -> None:
    """The highest PSS sum (MiB) of `pid` and its descendants, until `done`."""
    while not done.wait(0.02):
        peak[0] = max(peak[0], sum(_pss_kib(p) for p in _tree(pid)) / 1024)


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [pid, *(d for child in children for d in _tree(int(child)))]


def _pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    return {
        p.relative_to(root).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


def wait_until(check: object, limit: float = 120.0) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        try:
            if check():  # type: ignore[operator]
                return time.perf_counter() - start
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise SystemExit("timed out waiting")


def peak_of(pid: int) -> float:
    """The peak resident set (MiB) of a running server: the sum of each of its processes' own
    peaks (`confcal serve` is granian's supervisor and the worker processes it spawned, each
    holding the schedule). An upper bound: libraries mapped in several processes count in each."""
    total = 0
    for process in _tree(pid):
        try:
            lines = Path(f"/proc/{process}/status").read_text().splitlines()
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))
    return total / 1024 if total else float("nan")


class Server:
    def __init__(self, command: list[str], url_check: str) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
        self.ready = wait_until(lambda: httpx.get(url_check, timeout=5).status_code == 200)
        self.ready_cpu = cpu_seconds(self.process.pid)

    def stop(self) -> float:
        peak = peak_of(self.process.pid)
        self.process.terminate()
        self.process.wait(timeout=20)
        return peak


def one_size(n: int, *, baseline: bool, servers: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix=f"confcal-bench-{n}-") as tmp:
        work = Path(tmp)
        db = str(work / "store.sqlite")
        for variant, extra in (("pages", []), ("moved", ["--moved"])):
            subprocess.run(
                [sys.executable, str(BENCH / "generate.py"), "--sessions", str(n), *extra, str(work / variant)],
                check=True,
            )
        figures: dict[str, float] = {}
        ingest = measure([*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "pages")])
        figures["ingest s"], figures["ingest cpu s"] = ingest.seconds, ingest.cpu
        figures["ingest MiB"] = ingest.peak_mib
        build = measure([*CONFCAL, "build", "--db", db, str(work / "site")])
        files = sum(1 for p in (work / "site").rglob("*") if p.is_file())
        figures["build s"], figures["build cpu s"] = build.seconds, build.cpu
        figures["build MiB"], figures["files"] = build.peak_mib, files
        if baseline:
            obvious = measure([sys.executable, str(BENCH / "obvious_build.py"), "--db", db, str(work / "obvious")])
            figures["obvious s"], figures["obvious cpu s"] = obvious.seconds, obvious.cpu
            figures["build speed-up (wall)"] = obvious.seconds / build.seconds
            figures["build speed-up (cpu)"] = obvious.cpu / build.cpu
        same = measure([*CONFCAL, "build", "--db", db, str(work / "site")])
        figures["no-change rebuild s"], figures["no-change rebuild cpu s"] = same.seconds, same.cpu
        before = snapshot(work / "site")
        measure([*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "moved")])
        rebuild = measure([*CONFCAL, "build", "--db", db, str(work / "site")])
        after = snapshot(work / "site")
        figures["rebuild s"], figures["rebuild cpu s"] = rebuild.seconds, rebuild.cpu
        figures["rebuild MiB"] = rebuild.peak_mib
        figures["rebuild % of build (wall)"] = 100 * rebuild.seconds / build.seconds
        figures["rebuild % of build (cpu)"] = 100 * rebuild.cpu / build.cpu
        figures["files changed"] = sum(1 for k, v in after.items() if before.get(k, ("", 0))[0] != v[0])
        figures["unchanged files rewritten"] = sum(
            1 for k, v in after.items() if k in before and before[k][0] == v[0] and before[k][1] != v[1]
        )
        from scale import serve_figures  # serve start, commit to new ETag (scale.py imports this module)

        figures |= serve_figures(Path(db), work / "pages")
        print(f"{n} sessions, {files} files:")
        for name, value in figures.items():
            print(f"  {name:<26} {value:10.2f}")
        if servers:
            figures.update(serve_bench.compare(db, work))  # bench/serve_bench.py
        # Last, so no deletion of its comes before a timed command: what writing the build's tree
        # costs this file system here, with nothing rendered (bench/fs_floor.py).
        floor = fs_floor.timed(str(work / "floor"), n)
        figures["fs floor s"], figures["fs floor system s"] = floor.wall, floor.system
        print(f"  {'fs floor s':<26} {figures['fs floor s']:10.2f}  ({figures['fs floor system s']:.2f} s system)")
        return figures


def cpu_index() -> float:
    """Seconds for a fixed piece of pure Python, the best of three: this machine's speed today, to
    read wall-time figures from machines (or days) of different speed against each other."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        sum(i * i for i in range(10**7))
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", default="10000", help="one size or several, comma-separated")
    parser.add_argument("--no-baseline", action="store_true", help="skip the obvious build")
    parser.add_argument("--no-wrk", action="store_true", help="skip the server comparisons")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sessions.split(",")]
    compiled()
    print(
        f"machine: {os.cpu_count()} cores, CPU index {cpu_index():.2f} s (sum of i*i below 10**7; 0.52-0.63 s in round 8)"
    )
    table = {n: one_size(n, baseline=not args.no_baseline, servers=not args.no_wrk) for n in sizes}
    if len(sizes) > 1:
        keys = [
            "ingest s",
            "ingest cpu s",
            "build s",
            "build cpu s",
            "rebuild s",
            "rebuild cpu s",
            "serve start s",
            "ingest MiB",
            "build MiB",
            "serve MiB",
        ]
        print("\n| sessions | " + " | ".join(keys) + " |")
        print("|---" * (len(keys) + 1) + "|")
        for n, figures in table.items():
            print(f"| {n} | " + " | ".join(f"{figures[k]:.1f}" for k in keys) + " |")


if __name__ == "__main__":
    main()
