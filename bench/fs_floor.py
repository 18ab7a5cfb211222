"""The file system's share of a `confcal build`, without confcal: write the tree a real build wrote
(the same directories, the same files of the same sizes, the same hard links) from bytes made
beforehand, and time it.

    python bench/fs_floor.py SITE DIR    # SITE: a build's output; DIR must not exist, on the file system to measure

Nothing is rendered, keyed or hashed: for each file of SITE, in the order a walk finds them, its
directory is made, then the file is created exclusively, by descriptor, and written in one call
(as a first build does), or made a hard link to the file it shares an inode with (the default
conference's copy at the root). This is the least writing that tree can cost in system calls, in
one process. `bench/run.py` times it beside the site it built, in the same minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Tree:
    """What to write: directories (parents first), files (path, size) and links (path, source),
    in the order to make them; paths relative to the root."""

    directories: tuple[str, ...]
    files: tuple[tuple[str, int], ...]
    links: tuple[tuple[str, str], ...]

    @property
    def size(self) -> int:
        return sum(size for _, size in self.files)


def plan(site: str) -> Tree:
    """The tree of the build output `site`: hard links to one file written once, linked after."""
    directories: list[str] = []
    files: list[tuple[str, int]] = []
    links: list[tuple[str, str]] = []
    first: dict[tuple[int, int], str] = {}
    for top, dirs, names in os.walk(site):
        relative = os.path.relpath(top, site)
        prefix = "" if relative == "." else relative + "/"
        directories += [prefix + d for d in sorted(dirs)]
        for name in sorted(names):
            stat = os.stat(f"{top}/{name}", follow_symlinks=False)
            path = prefix + name
            known = first.get((stat.st_dev, stat.st_ino))
            if known is None:
                first[stat.st_dev, stat.st_ino] = path
                files.append((path, stat.st_size))
            else:
                links.append((path, known))
    return Tree(tuple(directories), tuple(files), tuple(links))


_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL


def _write(root: str, tree: Tree, bodies: dict[int, bytes]) -> int:
    os.mkdir(root)
    for directory in tree.directories:
        os.mkdir(f"{root}/{directory}")
    for path, size in tree.files:
        out = os.open(f"{root}/{path}", _NEW, 0o666)  # a file object would add an fstat(2)
        os.write(out, bodies[size])  # whole, as tmpfs and ext4 write a regular file
        os.close(out)
    for path, source in tree.links:
        os.link(f"{root}/{source}", f"{root}/{path}")
    return len(tree.files) + len(tree.links)


@dataclass(frozen=True)
class Floor:
    made: int  # files and links
    bytes: int
    wall: float
    user: float
    system: float

    @property
    def cpu(self) -> float:
        return self.user + self.system


def timed(root: str, tree: Tree) -> Floor:
    """`write_tree` after a sync (the last run's deletions are not this one's cost), timed; the
    filler bytes are made before the clock starts."""
    sizes = {size for _, size in tree.files}
    filler = b"x" * max(sizes, default=0)
    bodies = {size: filler[:size] for size in sizes}
    os.sync()
    started, before = time.perf_counter(), os.times()
    made = _write(root, tree, bodies)
    after = os.times()
    return Floor(made, tree.size, time.perf_counter() - started, after.user - before.user, after.system - before.system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="a build's output directory, whose tree is written again")
    parser.add_argument("dir", type=Path, help="where to write (must not exist); removed afterwards")
    args = parser.parse_args()
    tree = plan(str(args.site))
    floor = timed(str(args.dir), tree)
    print(
        f"{floor.made} files and links ({floor.bytes / 1e6:.0f} MB), {len(tree.directories)} directories: "
        f"{floor.wall:.2f} s wall, {floor.user:.2f} s user, {floor.system:.2f} s system"
    )
    shutil.rmtree(args.dir)


if __name__ == "__main__":
    main()
