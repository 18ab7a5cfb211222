"""Every figure of issue 32, measured on the whole commands a user runs, each with its target.

    python bench/run.py --quick     # 1k and 5k sessions, 1/10/100 conferences, short wrk runs: minutes
    python bench/run.py --full      # 1k/10k/50k sessions, 1/100/1,000 conferences: about an hour
    python bench/run.py --sessions 10000 --conferences "" --no-wrk   # any mix

First the machine's CPU index (a fixed CPU-bound loop, so runs on other machines compare). For
each conference size (bench/generate.py): `confcal ingest`; `confcal build` into tmpfs and into
ext4, each beside the file system's floor (bench/fs_floor.py writing the same tree the build
wrote, in the same minutes; on tmpfs three builds, each beside three floors (the median floor),
the median CPU ratio's given; on ext4 three pairs, the median wall ratio's given); a build with
nothing changed; the re-ingest of one moved session and the one-change rebuild (files whose
bytes changed, unchanged files rewritten, bytes written, and its CPU over the imports a build
pays before reading anything, timed at the start and again beside the rebuild, the lower
taken; the median of five rebuilds, the session moved back and forth); `confcal serve`: start, a new ingest served after its commit, peak memory. At the size
given for the servers (the largest up to 10,000): wrk against the ceiling app on every route
(bench/serve_bench.py) and through the deploy's nginx (bench/nginx_bench.py). Then the
many-conference figures (bench/conferences.py). Last the growth tables, each step's growth
exponent between sizes (1.0 is linear) and what grows faster than linearly.

Wall time and CPU time (the command's own and its workers', wait4) are given together: the
machine is shared, and the load average is printed with each size. Peak memory of a command is
the larger of its own peak resident set (VmHWM) and the highest sum of proportional set sizes
(PSS) of its process tree, sampled every 20 ms. Nothing here is a test: it prints figures.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import fs_floor  # bench/, beside this script

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
CONFCAL = [sys.executable, "-m", "server.cli"]
# As installed: pip compiles the package's bytecode, so no command pays for compiling its modules
# (a development shell's PYTHONDONTWRITEBYTECODE would make every command compile them again).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(ROOT)}
IDENTITY = {"accept-encoding": "identity"}
TMPFS = Path("/dev/shm")
# What `confcal build` imports before it reads the store, as it imports them (its renderers and
# the store with the collector held off: server/commands/build.py), ended as it ends (without
# the interpreter's teardown and its last collector pass: server/cli.py): its floor for a
# rebuild of nothing.
BUILD_IMPORTS = (
    "import os, server.cli, server.commands.build\n"
    "from server.collector import bulk_allocation\n"
    "with bulk_allocation():\n"
    "    import server.links, server.site.build_changes, server.site.build_conferences, "
    "server.site.build_workers, server.store, server.web.demo\n"
    "os._exit(0)"
)

# The targets of issue 32, as (figure, at most, what it is)
TARGETS = {
    "new ingest served s": 1.0,
    "rebuild cpu over imports s": 0.3,
    "build cpu / floor cpu (tmpfs)": 8.0,
    "build wall / floor wall (ext4)": 2.5,
    "peak MiB (every command)": 500.0,
}


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
    # discards of a tree deleted just before) otherwise lands in this command's time.
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
    # Not wait4's ru_maxrss: it counts the resident set this process had when it forked the
    # command (a 600 MiB parent made /bin/true's peak 618 MiB).
    return Run(elapsed, usage.ru_utime + usage.ru_stime, tree_peak[0], output)


def _sample_tree(pid: int, done: threading.Event, peak: list[float]) -> None:
    """Every 20 ms until `done`, the larger of the highest PSS sum (MiB) of `pid` and its
    descendants and `pid`'s own peak resident set since it started its program (VmHWM)."""
    while not done.wait(0.02):
        peak[0] = max(peak[0], sum(_pss_kib(p) for p in _tree(pid)) / 1024, _hwm_kib(pid) / 1024)


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [pid, *(d for child in children for d in _tree(int(child)))]


def _kib(path: str, field: str) -> int:
    """A kB field of a /proc file (0 once the process is gone)."""
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _pss_kib(pid: int) -> int:
    return _kib(f"/proc/{pid}/smaps_rollup", "Pss:")


def _hwm_kib(pid: int) -> int:
    return _kib(f"/proc/{pid}/status", "VmHWM:")


def generate(sessions: int, work: Path) -> None:
    """The conference of `sessions` sessions in `work/pages`, and with one session moved in
    `work/moved` (bench/generate.py)."""
    for variant, extra in (("pages", []), ("moved", ["--moved"])):
        subprocess.run(
            [sys.executable, str(BENCH / "generate.py"), "--sessions", str(sessions), *extra, str(work / variant)],
            check=True,
        )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def tree_state(root: Path) -> dict[str, tuple[str, int, int]]:
    """Each file's digest, mtime and size, by relative path."""
    found = {}
    for p in root.rglob("*"):
        if p.is_file():
            stat = p.stat()
            found[p.relative_to(root).as_posix()] = (
                hashlib.sha256(p.read_bytes()).hexdigest(),
                stat.st_mtime_ns,
                stat.st_size,
            )
    return found


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


def cpu_index() -> float:
    """Seconds for a fixed piece of pure Python, the best of three: this machine's speed today, to
    read wall-time figures from machines (or days) of different speed against each other."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        sum(i * i for i in range(10**7))
        best = min(best, time.perf_counter() - started)
    return best


# Builds on ext4, each beside its floor: the disk is shared, and one pair's ratio moved threefold
# from one run to the next (the floor alone took from 1.7 to 9.1 s for the same 10k tree in an hour).
EXT4_PAIRS = 3
# Floors written beside each tmpfs build: a floor is a few seconds, a 50k build most of a minute.
TMPFS_FLOORS = 3
# Builds on tmpfs, each beside its floors: the same build's CPU time moved by a tenth within an
# hour on this shared machine, so one build beside three floors could land either side of 8x.
TMPFS_BUILDS = 3
# One-change rebuilds, the median taken: an odd number, so the store and the site end with the
# session moved, where the server figures after them start.
REBUILDS = 5


def imports_cpu() -> float:
    """CPU seconds of the imports a build pays before it reads the store, the best of three."""
    return min(measure([sys.executable, "-c", BUILD_IMPORTS]).cpu for _ in range(3))


def changed_floor(site: Path, changed: list[str], where: Path) -> fs_floor.Floor:
    """The least a rebuild that wrote `changed` (paths in `site`) can cost: the same files, of the
    same sizes (hard links as links), written into the new directory `where` on the same file
    system, in one process; `where` is removed afterwards."""
    tree = fs_floor.plan(str(site))
    wanted = set(changed)
    files = tuple((path, size) for path, size in tree.files if path in wanted)
    written = {path for path, _ in files}
    links = tuple((path, source) for path, source in tree.links if path in wanted and source in written)
    # A changed file linked to one whose own path did not change (cannot happen with whole
    # copies, but the tree says which inode came first): written as a file of its size.
    sizes = dict(tree.files)
    sources = {path: source for path, source in tree.links}
    files += tuple((path, sizes[sources[path]]) for path in changed if path in sources and sources[path] not in written)
    parents = {os.path.dirname(path) for path, _ in files} | {os.path.dirname(path) for path, _ in links}
    directories = tuple(d for d in tree.directories if d in parents or any(p.startswith(d + "/") for p in parents))
    floor = fs_floor.timed(str(where), fs_floor.Tree(directories, files, links))
    shutil.rmtree(where)
    return floor


def build_and_floor(db: str, where: Path, name: str, floors: int = 1) -> dict[str, float]:
    """`confcal build` into a new directory under `where`, then the floor writing its tree there,
    `floors` times: the median by CPU (on a shared machine one floor can come out far from the
    others: bench/RESULTS.md, round 21)."""
    site = where / f"{name}-site"
    build = measure([*CONFCAL, "build", "--db", db, str(site)])
    tree = fs_floor.plan(str(site))
    timed = []
    for _ in range(floors):
        timed.append(fs_floor.timed(str(where / f"{name}-floor"), tree))
        shutil.rmtree(where / f"{name}-floor")
    floor = sorted(timed, key=lambda run: run.cpu)[floors // 2]
    return {
        "build s": build.seconds,
        "build cpu s": build.cpu,
        "build MiB": build.peak_mib,
        "files": floor.made,
        "MB": floor.bytes / 1e6,
        "floor s": floor.wall,
        "floor cpu s": floor.cpu,
        "floors": floors,
        "lowest floor cpu s": min(run.cpu for run in timed),
        "highest floor cpu s": max(run.cpu for run in timed),
    }


def build_and_floor_runs(
    db: str, where: Path, name: str, runs: int, *, cpu: bool, floors: int = 1, keep_first: bool = False
) -> dict[str, float]:
    """`build_and_floor` `runs` times, each build into a new directory removed after it (with
    `keep_first`, the first stays as `{name}-site`, for the rebuilds measured after it): the run
    whose ratio to its floor is the median, of CPU time with `cpu` (tmpfs) or of wall time (ext4,
    where a build and a floor back to back meet the same shared disk), with the lowest and highest
    ratios and the largest build's peak memory."""
    results = []
    for run in range(runs):
        label = name if keep_first and run == 0 else f"{name}-{run}"
        results.append(build_and_floor(db, where, label, floors))
        if label != name:
            remove_site(where / f"{label}-site")
    measured, build, floor = ("cpu", "build cpu s", "floor cpu s") if cpu else ("wall", "build s", "floor s")
    ratios = [result[build] / result[floor] for result in results]
    median = sorted(range(runs), key=ratios.__getitem__)[runs // 2]
    return results[median] | {
        "runs": runs,
        f"lowest {measured} ratio": min(ratios),
        f"highest {measured} ratio": max(ratios),
        "highest build MiB": max(result["build MiB"] for result in results),
    }


def remove_site(site: Path) -> None:
    """No `site`, and no record of a build beside it (`.{name}.confcal-build.*`): a build into a
    directory beside the last one's record reads the parts it can, and is no first build."""
    shutil.rmtree(site, ignore_errors=True)
    for kept in site.parent.glob(f".{site.name}.confcal-build.*"):
        if kept.is_dir():
            shutil.rmtree(kept)
        else:
            kept.unlink()


def one_size(n: int, *, servers: bool, quick: bool, imports: float) -> dict[str, float]:
    from scale import serve_figures  # serve start, commit to new ETag (scale.py imports this module)

    with (
        tempfile.TemporaryDirectory(prefix=f"confcal-bench-{n}-") as tmp,
        tempfile.TemporaryDirectory(prefix=f"confcal-bench-{n}-", dir=TMPFS) as shm,
    ):
        work, fast = Path(tmp), Path(shm)
        db = str(work / "store.sqlite")
        generate(n, work)
        # The machine's speed before and after, beside the load: on a shared machine it can move
        # between two sizes of one run, for Python's work and not for the file system's floor.
        figures: dict[str, float] = {"load before": os.getloadavg()[0], "CPU index before": cpu_index()}
        ingest = measure([*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "pages")])
        figures |= {"ingest s": ingest.seconds, "ingest cpu s": ingest.cpu, "ingest MiB": ingest.peak_mib}
        tmpfs = build_and_floor_runs(db, fast, "tmpfs", TMPFS_BUILDS, cpu=True, floors=TMPFS_FLOORS, keep_first=True)
        figures |= {f"{k} (tmpfs)": v for k, v in tmpfs.items()}
        figures["build cpu / floor cpu (tmpfs)"] = tmpfs["build cpu s"] / tmpfs["floor cpu s"]
        ext4 = build_and_floor_runs(db, work, "ext4", EXT4_PAIRS, cpu=False)
        figures |= {f"{k} (ext4)": v for k, v in ext4.items()}
        figures["build wall / floor wall (ext4)"] = ext4["build s"] / ext4["floor s"]
        figures |= {"build s": tmpfs["build s"], "build cpu s": tmpfs["build cpu s"]}
        figures["build MiB"] = tmpfs["highest build MiB"]
        site = fast / "tmpfs-site"
        same = measure([*CONFCAL, "build", "--db", db, str(site)])
        figures |= {"no-change rebuild s": same.seconds, "no-change rebuild cpu s": same.cpu}
        figures["no-change rebuild MiB"] = same.peak_mib
        before = tree_state(site)
        again = measure([*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "moved")])
        figures |= {"reingest s": again.seconds, "reingest cpu s": again.cpu, "reingest MiB": again.peak_mib}
        # The imports again, beside the rebuild: on a shared machine the run's first figure
        # can come from a busier minute, and every figure "over the imports" would carry it.
        imports = min(imports, imports_cpu())
        rebuild = measure([*CONFCAL, "build", "--db", db, str(site)])
        after = tree_state(site)
        changed = [k for k, v in after.items() if before.get(k, ("", 0, 0))[0] != v[0]]
        floor = changed_floor(site, changed, fast / "rebuild-floor")
        # More one-change rebuilds, the session moved back and forth (ending where the first
        # left it): the median is the figure, since the same rebuild's CPU time moves by half
        # from one minute to the next on this shared machine.
        rebuilds = [rebuild]
        for turn in range(1, REBUILDS):
            there = work / ("pages" if turn % 2 else "moved")
            measure([*CONFCAL, "ingest", "--db", db, "--tz", "Europe/Paris", str(there)])
            rebuilds.append(measure([*CONFCAL, "build", "--db", db, str(site)]))
        middle = sorted(rebuilds, key=lambda run: run.cpu)[len(rebuilds) // 2]
        figures |= {"rebuild s": middle.seconds, "rebuild cpu s": middle.cpu, "rebuilds": len(rebuilds)}
        figures["lowest rebuild cpu s"] = min(run.cpu for run in rebuilds)
        figures["highest rebuild cpu s"] = max(run.cpu for run in rebuilds)
        figures["rebuild MiB"] = max(run.peak_mib for run in rebuilds)
        figures["imports cpu s"] = imports
        figures["rebuild cpu over imports s"] = middle.cpu - imports
        figures |= {"rebuild floor: write the changed files s": floor.wall}
        figures["rebuild floor: write the changed files cpu s"] = floor.cpu
        figures["rebuild cpu over imports and that floor s"] = middle.cpu - imports - floor.cpu
        figures["files changed"] = len(changed)
        figures["MB changed"] = sum(after[k][2] for k in changed) / 1e6
        figures["unchanged files rewritten"] = sum(
            1 for k, v in after.items() if k in before and before[k][0] == v[0] and before[k][1] != v[1]
        )
        # Its re-ingests (the session moved back and forth, while a server polls) are not the
        # one above. The median of three: the server looks at the store every half second, so
        # one ingest's wait is anywhere in that half second before the work it measures.
        served = serve_figures(Path(db), work / "pages", again=work / "moved", rounds=3)
        figures |= {k: v for k, v in served.items() if not k.startswith("reingest")}
        # The largest of the ext4 builds too: how far the writes hold the build back decides
        # whether its process and its workers are at their largest at once.
        every = (
            "ingest MiB",
            "reingest MiB",
            "build MiB",
            "highest build MiB (ext4)",
            "no-change rebuild MiB",
            "rebuild MiB",
            "serve MiB",
        )
        figures["peak MiB (every command)"] = max(figures[k] for k in every)
        figures["load after"] = os.getloadavg()[0]
        figures["CPU index after"] = cpu_index()
        show(f"{n:,} sessions, {int(tmpfs['files']):,} files, {tmpfs['MB']:.0f} MB:", figures)
        if servers:
            import serve_bench

            serve_bench.compare(db, work, seconds=3 if quick else 8, rounds=1, personal=200 if quick else 1000)
            nginx = [sys.executable, str(BENCH / "nginx_bench.py"), "--sessions", str(n)]
            nginx += ["--seconds", "3" if quick else "8", "--rounds", "1" if quick else "3"]
            print(subprocess.run(nginx, capture_output=True, text=True, env=ENV, check=True).stdout.rstrip())
            sys.stdout.flush()
        return figures


def show(title: str, figures: dict[str, float]) -> None:
    """Print `figures` under `title`, each issue 32 target beside its figure."""
    print(title)
    for name, value in figures.items():
        target = TARGETS.get(name)
        mark = "" if target is None else f"   target <= {target:g}: {'met' if value <= target else 'NOT MET'}"
        print(f"  {name:<34} {value:10.2f}{mark}")
    sys.stdout.flush()


def exponent(small: float, large: float, ratio: float) -> float:
    """How a figure grows between two sizes `ratio` apart: 1.0 is linear, 0 flat."""
    if small <= 0 or large <= 0:
        return float("nan")
    return math.log(large / small) / math.log(ratio)


# (column, CPU key, wall key)
STEPS = [
    ("ingest", "ingest cpu s", "ingest s"),
    ("re-ingest of one change", "reingest cpu s", "reingest s"),
    ("build", "build cpu s", "build s"),
    ("one-change rebuild", "rebuild cpu s", "rebuild s"),
    ("new ingest served", "new ingest served cpu s", "new ingest served s"),
    ("serve start", "serve start cpu s", "serve start s"),
]
MEMORY = ["ingest MiB", "reingest MiB", "build MiB", "rebuild MiB", "serve MiB"]


def growth_table(results: dict[int, dict[str, float]], unit: str) -> str:
    """CPU seconds (wall in brackets) of each step, peak MiB of each command, and under each size
    after the first the growth exponent of each step's CPU from the size before."""
    head = [unit, *(name for name, _, _ in STEPS), "peak MiB " + " / ".join(m.split()[0] for m in MEMORY), "load"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    sizes = list(results)
    for at, n in enumerate(sizes):
        f = results[n]
        cells = [f"{n:,}"]
        for _, cpu, wall in STEPS:
            cells.append(f"{f[cpu]:.2f} s ({f[wall]:.2f} s)" if cpu in f else "-")
        cells.append(" / ".join(f"{f[m]:.0f}" if m in f else "-" for m in MEMORY))
        cells.append(f"{f['load before']:.0f}-{f['load after']:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
        if at:
            smaller = results[sizes[at - 1]]
            growth = [f"x{n / sizes[at - 1]:g}: exponent"]
            for _, cpu, _ in STEPS:
                value = exponent(smaller.get(cpu, 0), f.get(cpu, 0), n / sizes[at - 1])
                growth.append(
                    "-" if math.isnan(value) else f"{value:.2f}" + (" **superlinear**" if value > 1.1 else "")
                )
            growth += ["", ""]
            lines.append("| " + " | ".join(growth) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes and short runs: a few minutes")
    mode.add_argument("--full", action="store_true", help="1k/10k/50k sessions, 1/100/1,000 conferences")
    parser.add_argument("--sessions", help="conference sizes, comma-separated")
    parser.add_argument("--conferences", help="numbers of 200-session conferences, comma-separated ('' for none)")
    parser.add_argument("--no-wrk", action="store_true", help="skip the server comparisons (wrk, nginx)")
    parser.add_argument("--no-conference-build", action="store_true", help="skip builds of many conferences")
    args = parser.parse_args()
    quick = not args.full
    sessions = args.sessions or ("1000,10000,50000" if args.full else "1000,5000")
    conferences = args.conferences if args.conferences is not None else ("1,100,1000" if args.full else "1,10,100")
    sizes = [int(s) for s in sessions.split(",") if s]
    counts = [int(c) for c in conferences.split(",") if c]
    compiled()
    print(f"machine: {os.cpu_count()} cores, CPU index {cpu_index():.2f} s (sum of i*i below 10**7, best of three)")
    imports = imports_cpu()
    print(f"a build's imports: {imports:.2f} s of CPU (python -c {BUILD_IMPORTS!r})")
    servers = not args.no_wrk
    if servers:
        import serve_bench

        serve_bench.ensure_tools()
    at_servers = max((n for n in sizes if n <= 10_000), default=None)
    table = {n: one_size(n, servers=servers and n == at_servers, quick=quick, imports=imports) for n in sizes}
    many: dict[int, dict[str, float]] = {}
    if counts:
        import conferences as many_conferences

        many = many_conferences.growth(counts, build=not args.no_conference_build)
    print()
    if table:
        print(growth_table(table, "sessions"))
        for n, f in table.items():
            ratio = f"{f['rebuild cpu over imports s']:.2f} s"
            print(f"one-change rebuild over imports at {n:,}: {ratio}")
        if len(sizes) > 1 and sizes[-1] > sizes[-2]:
            last, before = table[sizes[-1]], table[sizes[-2]]
            for key in ("rebuild cpu over imports s", "new ingest served s", "reingest cpu s"):
                print(f"{key} {sizes[-1]:,} / {sizes[-2]:,}: {last[key] / before[key]:.2f}x (target <= 1.2x)")
    if many:
        print()
        print(growth_table(many, "conferences"))
        for count, f in many.items():
            print(
                f"{count:,} conferences: serve start {f['serve start s']:.2f} s (target <= 3), serve "
                f"{f['serve MiB']:.0f} MiB after asking every conference (target <= 1024), cold feed "
                f"{f['cold feed ms']:.0f} ms (target <= 300), warm feed / ceiling {f['warm feed / ceiling']:.2f}"
            )


if __name__ == "__main__":
    main()
