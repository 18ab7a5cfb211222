"""`confcal` command line: one module per sub-command under server/commands/.

Every expected failure (bad input, refused ingest, unreachable server) is printed as one line on
stderr with a non-zero exit; a traceback means a bug.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

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
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with `only` (a command name) just that command: importing every
    command's modules (the server, the job queue, ...) took a second of CPU before `confcal ingest`
    did anything (issue 12)."""
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
    except (FeedsError, ServerError, OSError) as exc:
        print(f"confcal {args.command}: error: {safe_lines(redact(str(exc)))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"confcal {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
