"""`confcal caldav new-key | rotate-key`: the key that encrypts the CalDAV passwords the server keeps.

`new-key` prints a fresh Fernet key (for CONFCAL_SECRET_KEY or a key file). `rotate-key`
re-encrypts every stored password with the first configured key; run it after putting a new key
first in the list, then the old key can be dropped (docs/security.md, "Rotating the key"). Neither prints a
password; rotate-key prints how many it re-encrypted.
"""

from __future__ import annotations

import argparse
from typing import Any

from server.commands import add_db_option
from server.crypto import new_key
from server.store import Store
from server.store.caldav_targets import CaldavTargets


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "caldav",
        help="manage the key of the stored CalDAV passwords",
        description=__doc__,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = actions.add_parser("new-key", help="print a new secret key")
    make.set_defaults(run=run_new_key)
    rotate = actions.add_parser("rotate-key", help="re-encrypt every stored password with the first configured key")
    add_db_option(rotate)
    rotate.set_defaults(run=run_rotate)


def run_new_key(args: argparse.Namespace) -> int:
    print(new_key())
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        count = CaldavTargets(store.engine).rotate_keys()
    print(f"re-encrypted {count} stored password{'' if count == 1 else 's'}")
    return 0
