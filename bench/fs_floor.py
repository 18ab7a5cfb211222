"""The file system's share of a 10,000-session `confcal build`, without confcal: write the same tree
of made bytes the build writes and time it (issue 12's 15x target is about 2.2-2.5 s of wall for the
whole build on the bench machine).

    python bench/fs_floor.py DIR [--sessions N]   # DIR must not exist; on the file system to measure

The tree is the build's own pattern (10,000 sessions by default, a third as many speakers, as the
generator makes them): for each session a directory holding its page (7.4 KB) and its download
beside it (1.3 KB), for each speaker a page directory, a feed and a QR code, under the
conference's base (`c/{slug}/`) and again at the root as hard links, each file created in place
as a first build does. Nothing is rendered: this is the least a build of that site can cost in
system calls, in one process. `bench/run.py` times it last, beside the site it built.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

SESSIONS = 10_000
PAGE, DOWNLOAD, FEED, QR = b"p" * 7_450, b"i" * 1_301, b"f" * 3_000, b"q" * 2_000


def write_site(root: str, sessions: int = SESSIONS) -> int:
    """Write the tree of `sessions` sessions under `root`; returns the number of files and links made."""
    speakers = sessions // 3
    base = f"{root}/c/bench"
    made = 0
    for top in ("sessions", "speakers", "feeds/speaker", "qr/speaker"):
        os.makedirs(f"{base}/{top}")
        os.makedirs(f"{root}/{top}")
    for i in range(sessions):
        for where in (base, root):
            os.mkdir(f"{where}/sessions/{i:010x}")
        _create(f"{base}/sessions/{i:010x}/index.html", PAGE)
        _create(f"{base}/sessions/{i:010x}.ics", DOWNLOAD)
        os.link(f"{base}/sessions/{i:010x}/index.html", f"{root}/sessions/{i:010x}/index.html")
        os.link(f"{base}/sessions/{i:010x}.ics", f"{root}/sessions/{i:010x}.ics")
        made += 4
    for i in range(speakers):
        for where in (base, root):
            os.mkdir(f"{where}/speakers/s{i}")
        for relative, body in (
            (f"speakers/s{i}/index.html", PAGE),
            (f"feeds/speaker/s{i}.ics", FEED),
            (f"qr/speaker/s{i}.svg", QR),
        ):
            _create(f"{base}/{relative}", body)
            os.link(f"{base}/{relative}", f"{root}/{relative}")
            made += 2
    return made


@dataclass(frozen=True)
class Floor:
    made: int  # files and links
    wall: float
    user: float
    system: float


def timed(root: str, sessions: int = SESSIONS) -> Floor:
    """`write_site` after a sync (the last run's deletions are not this one's cost), timed."""
    os.sync()
    started, before = time.perf_counter(), os.times()
    made = write_site(root, sessions)
    after = os.times()
    return Floor(made, time.perf_counter() - started, after.user - before.user, after.system - before.system)


def _create(path: str, body: bytes) -> None:
    with open(path, "xb", buffering=0) as out:
        out.write(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="where to write (must not exist); removed afterwards")
    parser.add_argument("--sessions", type=int, default=SESSIONS, help="sessions of the site (default 10,000)")
    args = parser.parse_args()
    floor = timed(str(args.dir), args.sessions)
    print(
        f"{floor.made} files and links, {2 * (args.sessions + args.sessions // 3)} directories: "
        f"{floor.wall:.2f} s wall, {floor.user:.2f} s user, {floor.system:.2f} s system"
    )
    shutil.rmtree(args.dir)


if __name__ == "__main__":
    main()
