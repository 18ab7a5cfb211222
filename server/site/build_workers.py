"""Files of a static build made by forked worker processes, so `confcal build` uses every core.

Which files: those made from the snapshot alone that no other file is joined from and that keep
no part: a session's download and page, a speaker's page, a feed's QR code
(`site_build.independent`), about half of a full build's work, and their hard links at the root
(the default conference's copy): on ext4 a directory and a link cost more than the page. The
build's own process keeps everything else: the feeds and their kept events, the schedule pages
and their kept parts, the exports, the changelog (which reads the store) and the record.

A file whose key the record already knows is skipped at once, as ever. The others wait in a
batch until the run of them ends (the build turns to a file of its own), as many wait as may,
or the build is finishing; then, if the batch is worth a fork (`FIRST`), a free worker is forked
for it. It inherits the snapshot (fork, copy on write: nothing is pickled but the results),
makes and writes each file through its copy of `Output`, and sends back what the record needs of
each file. Each fork costs about the same whatever its batch (both processes copy the pages they
touch while they share them), so a build forks once per run, not once per few thousand files.
A rebuild after one session moved has a handful of such files and never forks. Without
`os.fork` (Windows) or with one job, every file is made in the build's process, and so are the
files left once the process is too large to fork without the worker's copies of its pages
taking the build over its memory budget (`FORK_BELOW`).
"""

from __future__ import annotations

import gc
import os
import pickle
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from server.errors import ServerError
from server.site.build_bodies import Body
from server.site.build_output import Entry, Output

# Pending files that make a fork worth it. A fork of a process of a hundred megabytes costs the
# two processes some ten thousand page faults (copies of the pages either touches while they
# share them) and its page tables: tens of milliseconds of CPU, as much as a worker spends on a
# thousand files. A batch of twice that gains time; a smaller one costs more than it saves
# (in a build of many small conferences, every conference's few hundred pages forked again).
FIRST = 2000
# At most this many files wait for a worker: beyond, this process makes them, and a free worker
# is forked for them without waiting for their run to end. Each holds what it is made from until
# made, and in a build of many conferences that is each one's snapshot.
WAITING = 20000
_LOOK = 0.005  # seconds
# The resident set (bytes) from which the build's process forks no more workers and makes the
# files left itself. A worker's pages are the process's until either writes to them, and both
# do at every object they touch (reference counts, the allocator's free lists): within a second
# of its fork a worker holds copies of about half of the process, and the process copies as
# many of its own. Below this the two stay under 500 MiB; a large conference's process passes
# it late in its build (its snapshot, the record of every file so far, the feeds' events).
FORK_BELOW = 256 << 20
_RESIZE = 0.1  # seconds
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
Make = Callable[[], Body]
# (path, key, make, the path hard-linked to it or None)
_Item = tuple[str, str, Make, str | None]


class WorkerFailed(ServerError):
    """A worker process of `confcal build` failed or died; the build's record is not saved."""


def default_jobs() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


@dataclass
class _Worker:
    pid: int
    pipe: int
    items: list[_Item]
    received: list[bytes] = field(default_factory=list)


class Workers:
    """`put` for every file of a build into `output`, the independent ones shared with up to
    `jobs - 1` workers."""

    def __init__(self, output: Output, jobs: int, fork_below: int = FORK_BELOW, first: int = FIRST) -> None:
        self._output = output
        self._jobs = jobs if hasattr(os, "fork") else 1
        self._fork_below = fork_below
        self._first = first  # pending files that make a fork worth it
        self._small = True  # whether this process is small enough to fork, as last asked
        self._asked_until = 0.0  # when to ask again (time.monotonic)
        self._pending: deque[_Item] = deque()  # taken from both ends, up to `WAITING` long
        self._running: list[_Worker] = []
        self._finishing = False
        self._ended = False  # whether the last file put was this process's own (a run ended)
        self._look = 0.0  # when to look at the workers' pipes next (time.monotonic)

    def put(self, relative: str, key: str | None, make: Make, link: str | None = None, *, shared: bool) -> None:
        """Make `relative` as `Output.put` does, and `link` as a hard link to it (`Output.link`),
        here or, when `shared` (`site_build.independent`) and its key is not the last build's, in
        a worker."""
        self._ended = not shared
        if shared and key is not None and self._jobs > 1 and self._output.outdated(relative, key):
            self._pending.append((relative, key, make, link))
            # A waiting file holds what it is made from (its conference's snapshot) until made:
            # this process makes the oldest beyond `WAITING` while the workers are busy, and
            # every one once it is too large to fork (no worker would take them before the end).
            limit = WAITING if self._small_enough() else 0
            while len(self._pending) > limit:
                self._here(*self._pending.popleft())
            self.poll()
        else:
            self.poll()  # a run just ended: its files go to a worker before this one is made here
            self._here(relative, key, make, link)

    def _here(self, relative: str, key: str | None, make: Make, link: str | None) -> None:
        self._output.put(relative, key, make)
        if link is not None:
            self._output.link(link, relative)

    def poll(self) -> None:
        """Take the results of the workers that are done and give the pending files to the free
        ones. Cheap: the build calls it between any two files."""
        # A look at the workers' pipes is a system call each: not more often than every few
        # milliseconds (a worker's batch takes a second or more), but at once when finishing.
        if self._running and (self._finishing or time.monotonic() >= self._look):
            self._collect(wait=False)
            self._look = time.monotonic() + _LOOK
        free = self._jobs - 1 - len(self._running)
        if free < 1 or len(self._pending) < self._first or not self._small_enough():
            return
        # Few large batches rather than many small ones: each fork copies the pages its worker
        # touches (page tables, reference counts), and the pages this process writes while they
        # share them, a cost that grows with the process, not with the batch. So the pending
        # files go when no more are coming for a while: their run ended (the build's files come
        # in runs: QR codes and session pages, speakers' pages, downloads) or no more may wait.
        if not (self._finishing or self._ended or len(self._pending) >= WAITING):
            return
        # While this process has files of its own to make, the free workers share every pending
        # file; once it has none (finish), it takes a share too.
        shares = free + (1 if self._finishing else 0)
        if self._finishing:
            # Half a share each: files cost unlike amounts (a speaker's page, a QR code, a
            # download), so equal shares end unequally; this process makes files from the back
            # meanwhile, and a worker done early takes half a share of what is left, so the
            # build's process does not wait at the end for a worker given an equal share.
            shares *= 2
        size = max(self._first, -(-len(self._pending) // shares))
        for _ in range(free):
            if len(self._pending) < self._first:
                break
            batch = [self._pending.popleft() for _ in range(min(size, len(self._pending)))]
            self._running.append(_fork(self._output, batch))

    def _small_enough(self) -> bool:
        """Whether this process is below `fork_below`, asked again only every `_RESIZE` seconds
        (a read of /proc per file would cost a large build seconds)."""
        now = time.monotonic()
        if now >= self._asked_until:
            self._small = _resident() < self._fork_below
            self._asked_until = now + _RESIZE
        return self._small

    def finish(self) -> None:
        """Make the files still pending, here and in workers, and take every worker's results."""
        self._finishing = True
        try:
            while self._pending:
                self.poll()
                if self._pending:
                    # One file here while the workers run: they took their batches from the front.
                    self._here(*self._pending.pop())
            self._collect(wait=True)
        finally:
            self.stop()

    def stop(self) -> None:
        """End every worker still running (a build that failed here): no file is half-written,
        each is renamed into place whole."""
        for worker in self._running:
            try:
                os.kill(worker.pid, 9)
            except ProcessLookupError:
                pass
            os.waitpid(worker.pid, 0)
            os.close(worker.pipe)
        self._running = []

    def _collect(self, *, wait: bool) -> None:
        """Take the results of the workers that are done (all of them, waiting, with `wait`)."""
        for worker in list(self._running):
            if not _receive(worker, wait):
                continue
            self._running.remove(worker)
            os.close(worker.pipe)
            _, status = os.waitpid(worker.pid, 0)
            outcome = pickle.loads(b"".join(worker.received)) if worker.received else None
            if status != 0 or not isinstance(outcome, list):
                raise WorkerFailed(f"confcal build: a worker failed: {outcome or f'exit status {status}'}")
            for (relative, _, _, link), (entry, linked) in zip(worker.items, outcome, strict=True):
                self._output.adopt(relative, entry)
                if link is not None and linked is not None:
                    self._output.adopt_link(link, relative, linked)


def _resident() -> int:
    """This process's resident set in bytes (0 where /proc does not tell: not Linux)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _receive(worker: _Worker, wait: bool) -> bool:
    """Read what `worker` sent so far; whether it has sent everything (its end of the pipe closed)."""
    if wait:
        os.set_blocking(worker.pipe, True)  # non-blocking from `_fork` on: one call less per poll
    while True:
        try:
            chunk = os.read(worker.pipe, 1 << 16)
        except BlockingIOError:
            return False
        if not chunk:
            return True
        worker.received.append(chunk)


def _fork(output: Output, items: list[_Item]) -> _Worker:
    reading, writing = os.pipe()
    pid = os.fork()
    if pid:
        os.close(writing)
        os.set_blocking(reading, False)
        return _Worker(pid, reading, items)
    # Out of the worker's collector's sight, what it inherited (the snapshot, its memos) stays
    # shared: a pass over it would write to every object's header and so copy every page.
    # Frozen here, not in the build's process (freezing splices the collector's lists, touching
    # no object), so the build's process still frees each conference's snapshot when done with
    # it: frozen there, every snapshot alive at a fork stayed to the end of the build.
    gc.freeze()
    output.forked()
    # The worker: make the files, send each one's record entry (or the error), and leave without
    # running the parent's exit handlers (its store connection, its progress line).
    os.close(reading)
    status, current = 0, ""
    entries: list[tuple[Entry, bool | None]] = []
    outcome: list[tuple[Entry, bool | None]] | str = entries
    try:
        for current, key, make, link in items:
            entries.append((output.make(current, key, make), None if link is None else output.link(link, current)))
        current = "writing the files"
        output.flush()
    except BaseException as error:  # the build's process reports it
        outcome, status = f"{current}: {type(error).__name__}: {error}", 1
    try:
        with os.fdopen(writing, "wb") as pipe:
            pipe.write(pickle.dumps(outcome))
    finally:
        os._exit(status)
