"""Draft a new revision from the difference between the revisions and server.store.tables:

    python -m server.store.migrations 0003_caldav_targets "CalDAV targets: one row per calendar"

Upgrades a throwaway SQLite store to the current head, lets Alembic's autogenerate compare it with
the code's tables, and writes versions/<id>.py chained after the head. Read and edit the draft
(autogenerate misses renames and data changes, and must work on PostgreSQL too), then test it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from alembic import command

from server.store import schema
from server.store.engine import make_engine


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rev_id, message = argv
    with tempfile.TemporaryDirectory() as work:
        engine = make_engine(f"sqlite:///{Path(work) / 'draft.sqlite'}")
        try:
            schema.upgrade(engine)
            with engine.begin() as conn:
                script = command.revision(schema.config(conn), message, autogenerate=True, rev_id=rev_id)
        finally:
            engine.dispose()
    path = getattr(script, "path", None)
    print(f"wrote {path}" if path else "wrote nothing")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
