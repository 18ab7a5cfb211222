"""The checks of the command-line values `build` and `export` share with `serve` (--base-url,
--default), apart from server.commands.settings, which loads the server's logging and job
settings. The rules they apply load when a value is checked, not when the parser is made, so
`confcal build --help` does not load the store and the app."""

from __future__ import annotations

import argparse


def conference_slug(value: str) -> str:
    from server.pages.params import BadPath, conference_segment

    try:
        return conference_segment(value)
    except BadPath as exc:
        raise argparse.ArgumentTypeError(f"not a conference slug: {value!r}") from exc


def base_url(value: str) -> str:
    from server.links import checked_base_url

    try:
        return checked_base_url(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc
