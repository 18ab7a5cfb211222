"""`confcal caldav new-key | rotate-key | calendars`: the key that encrypts the CalDAV passwords the
server keeps, and the calendars of an account.

`new-key` prints a fresh Fernet key (for CONFCAL_SECRET_KEY or a key file). `rotate-key`
re-encrypts every stored password (and invitation address) with the first configured key; run it after putting a new key
first in the list, then the old key can be dropped (docs/security.md, "Rotating the key"). Neither prints a
password; rotate-key prints how many it re-encrypted. `calendars` finds an account's calendars from
its server's address (RFC 6764: /.well-known/caldav, else the URL as given) and prints one line
per calendar: its URL, its name and whether it takes events; give the URL to `push --calendar`, or
the name to `push --server URL --calendar-name NAME`.
"""

from __future__ import annotations

import argparse
from typing import Any

from server.caldav.discovery import discover
from server.commands import add_db_option
from server.commands.push import add_account_options, read_password
from server.commands.terminal import safe
from server.crypto import new_key
from server.store import Store
from server.store.caldav_targets import CaldavTargets
from server.store.invitations import Invitations


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "caldav",
        help="manage the key of the stored CalDAV passwords; list an account's calendars",
        description=__doc__,
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    make = actions.add_parser("new-key", help="print a new secret key")
    make.set_defaults(run=run_new_key)
    rotate = actions.add_parser("rotate-key", help="re-encrypt every stored password with the first configured key")
    add_db_option(rotate)
    rotate.set_defaults(run=run_rotate)
    listing = actions.add_parser(
        "calendars",
        help="list the calendars of a CalDAV account, found from the server's address",
        description="Find the account's calendars from the server's address (https://cloud.example.org; "
        "for SOGo its DAV root, https://HOST/SOGo/dav/) and print one line per calendar: "
        'URL  "Name"  (events|no events).',
    )
    listing.add_argument(
        "--server", required=True, metavar="URL", help="the CalDAV server's address, or your e-mail address"
    )
    add_account_options(listing, required=True)
    listing.set_defaults(run=run_calendars)


def run_new_key(args: argparse.Namespace) -> int:
    print(new_key())
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    with Store.open(args.db) as store:
        count = CaldavTargets(store.engine).rotate_keys()
        addresses = Invitations(store.engine).rotate_keys()
    print(f"re-encrypted {count} stored password{'' if count == 1 else 's'}")
    if addresses:
        print(f"re-encrypted {addresses} stored e-mail address{'' if addresses == 1 else 'es'}")
    return 0


def run_calendars(args: argparse.Namespace) -> int:
    found = discover(args.server, args.username, read_password(args), allow_private=args.allow_private)
    for calendar in found.calendars:
        takes = "events" if calendar.events else "no events"
        print(safe(f'{calendar.url}  "{calendar.label}"  ({takes})'))
    return 0
