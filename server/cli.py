"""`confcal` command line: one module per sub-command under server/commands/.

Every expected failure (bad input, refused ingest, unreachable server) is printed as one line on
stderr with a non-zero exit; a traceback means a bug.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from feeds.errors import FeedsError
from feeds.outbound import redact
from server.commands.terminal import safe_lines
from server.errors import ServerError

COMMANDS = (
    "ingest",
    "serve",
    "build",
    "push",
    "export",
    "source",
    "worker",
    "history",
    "db",
    "diff",
    "rollback",
    "caldav",
    "conference",
)
# Commands whose process ends with their work: they leave without the interpreter's teardown,
# which frees their millions of objects one by one (a noticeable share of a large build).
# Their output is flushed first, and nothing of theirs waits for an exit handler: the store is
# closed and every file written and renamed into place before `main` returns.
QUICK_EXIT = frozenset({"build", "ingest"})
# The status a shell reports for a program SIGPIPE ended (128 + 13), as for `yes | head -1`:
# Python ignores SIGPIPE, so a closed pipe is a BrokenPipeError instead, ended here the same way.
CLOSED_PIPE = 141


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `only` (a command name) just that command: importing every
    command's modules (the server, the job queue, ...) would cost every command, `confcal ingest`
    included, a slow start for code it never runs."""
    parser = argparse.ArgumentParser(prog="confcal", description="Conference schedule feeds and CalDAV sync.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        try:
            module = importlib.import_module(f"server.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"server.commands.{name}":
                continue  # a command not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(words[0] if words else None)
    args = parser.parse_args(words)
    try:
        code: int = args.run(args)
    except BrokenPipeError:
        return closed_pipe()
    except (FeedsError, ServerError, OSError) as exc:
        print(f"confcal {args.command}: error: {safe_lines(redact(str(exc)))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"confcal {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


def closed_pipe() -> int:
    """The reader of stdout went away (`confcal history | head -1`): nothing more is worth
    printing, and nothing is wrong. Stdout is pointed at devnull so that the interpreter's own
    flush at exit does not fail on the closed pipe again, as the signal module's documentation
    recommends ("Note on SIGPIPE")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return CLOSED_PIPE


def entry() -> NoReturn:
    """The `confcal` program: `main` and the exit."""
    words = sys.argv[1:]
    code = main(words)
    try:
        # Output still buffered for a pipe is written here, and may find the pipe closed.
        sys.stdout.flush()
    except BrokenPipeError:
        code = closed_pipe()
    # Not under a profiler or tracer (cProfile, coverage): they write their results at exit.
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if words[:1] and words[0] in QUICK_EXIT and not watched:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
