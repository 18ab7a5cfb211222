"""The speakers' pages of a static build, each keyed on what it shows, and those keys kept for
the next build.

A speaker's page shows the speaker and their sessions, so its key lists those sessions' keys
(`site_build`'s `session_key`). A large conference has thousands of speakers, and keying each
page (its fields, its feed's spec, its sessions' keys) and reading its entry in the record went
over all of them for the one or two a change touches. A rebuild whose feeds were patched knows
which speakers' feeds the change touched; every other speaker shows what they showed then, so
the conference's `speakers/` directory is taken whole (build_conferences.py's `_kept`) and their
keys, which the speakers' directory page is keyed and spliced on, are the ones this part kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from server.site.build_output import Output, digest


class SpeakerKeys:
    """Each speaker page's key as the last build of the conference made it, by slug: a part
    named by `base` (the code, the conference and the base URLs), so a key from other code or
    for another site is never taken."""

    def __init__(self, output: Output, base: str) -> None:
        self._output = output
        self._key = digest(base, "speaker keys")

    def last(self) -> dict[str, str]:
        """The last build's keys by slug; none when it kept none (or the part is damaged)."""
        stored = self._output.kept(self._key)
        if stored is None:
            return {}
        slugs, keys = json.loads(stored)
        return dict(zip(slugs, keys, strict=True))

    def save(self, slugs: Sequence[str], keys: Sequence[str], last: dict[str, str]) -> None:
        """Keep `keys` (each slug's, in the speakers' order) for the next build: the part as it
        is when `last` held exactly these, else written again."""
        if len(last) == len(slugs) and all(last.get(slug) == key for slug, key in zip(slugs, keys, strict=True)):
            self._output.hold(self._key)
            return
        self._output.renew(self._key, json.dumps([list(slugs), list(keys)], separators=(",", ":")).encode())
