"""The JSON every document confcal publishes is written in: no whitespace, characters as they
are (UTF-8 once encoded), keys in the order given. One spelling for every writer, so equal
content gives equal bytes, and equal ETags, from the server and from a static build, and a
document joined from separately dumped pieces is the dump of the whole (RFC 8259 §2 lets
whitespace stand between any tokens; writing none is the spelling every writer can share)."""

from __future__ import annotations

import json

# One encoder for every call: `json.dumps` given options makes a new one each time, a quarter
# of the cost of an event's entry, and a build dumps one for each event of each export.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(value: object) -> str:
    """`value` as compact JSON text."""
    return _ENCODER.encode(value)
