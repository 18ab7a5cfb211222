"""One push in its own process, started on cue: for the tests of concurrent syncs of a calendar.

    python tests/helpers/push_worker.py DB CALENDAR GO_FILE SESSION_ID...

Prints "ready" once imported and connected to nothing yet, waits until GO_FILE exists (so two
workers start their syncs together), then syncs and prints the result's line.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from server.caldav import service
from server.caldav.retry import NO_WAIT
from server.caldav.target import SessionIds, SyncOptions, Target
from server.crypto import Password
from server.store import Store
from tests.helpers.push_helpers import PASSWORD, USER


def main() -> None:
    db, calendar, go, *ids = sys.argv[1:]
    print("ready", flush=True)
    while not Path(go).exists():
        time.sleep(0.005)
    with Store.open(db) as store:
        result = service.sync(
            store,
            Target(calendar, USER, Password(PASSWORD)),
            SessionIds(tuple(ids)),
            options=SyncOptions(retry=NO_WAIT, allow_private=True),
        )
    print(result.line(), flush=True)


if __name__ == "__main__":
    main()
