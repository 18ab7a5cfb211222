"""Progress of long commands (`ingest`, `build`, `export`) on a terminal, with tqdm.

A command names its steps as it starts each (`progress.step("reading 3 sources")`); tqdm draws
one line on stderr (`confcal ingest: reading 3 sources 0/2 |███   |`), and wipes it when the command ends, so the summary
line the command prints afterwards stands alone, as it always did. Nothing is drawn when stdout
or stderr is not a terminal (pipes, files, cron, tests) or with `--quiet`: the output is then
byte for byte what it was before progress existed.

tqdm rather than rich: one small pure-Python package, and a progress line is all we draw.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Never

from server.commands.terminal import safe

if TYPE_CHECKING:
    from tqdm import tqdm


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="show no progress on the terminal (the summary line is printed all the same)",
    )


def shown(quiet: bool) -> bool:
    """Draw progress only for a person watching: both output streams on a terminal."""
    return not quiet and sys.stdout.isatty() and sys.stderr.isatty()


class Progress:
    """Steps of one command; `step(what)` marks the previous step done and names the next
    (nothing to draw without a bar)."""

    def __init__(self, bar: tqdm[Never] | None, label: str) -> None:
        self._bar = bar
        self._label = label
        self._started = False

    def step(self, what: str) -> None:
        if self._bar is None:
            return
        if self._started:
            self._bar.update(1)
        self._started = True
        # Source names and slugs come from outside: escaped like every other terminal line.
        self._bar.set_description_str(f"{self._label}: {safe(what)}")


@contextmanager
def progress(label: str, total: int, *, quiet: bool) -> Iterator[Progress]:
    """A progress line `label: step n/total |bar|` on stderr while the block runs (see `shown`)."""
    if not shown(quiet):
        # Not even tqdm is loaded then: pipes, cron and benchmarks pay nothing for progress.
        yield Progress(None, label)
        return
    from tqdm import tqdm

    bar: tqdm[Never] = tqdm(
        total=total,
        desc=label,
        file=sys.stderr,
        leave=False,
        dynamic_ncols=True,
        bar_format="{desc} {n_fmt}/{total_fmt} |{bar}|",
        mininterval=0.1,
    )
    try:
        yield Progress(bar, label)
    finally:
        bar.close()
