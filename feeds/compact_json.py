"""The JSON every document confcal publishes is written in: no whitespace, characters as they
are (UTF-8 once encoded), keys in the order given. One spelling for every writer, so equal
content gives equal bytes, and equal ETags, from the server and from a static build, and a
document joined from separately dumped pieces is the dump of the whole (RFC 8259 §2 lets
whitespace stand between any tokens; writing none is the spelling every writer can share)."""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder

# One encoder for every call: `json.dumps` given options makes a new one each time, a quarter
# of the cost of an event's entry, and a build dumps one for each event of each export.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _chunks() -> Callable[[object, int], tuple[str, ...]] | None:
    """The C encoder `_ENCODER.encode` makes anew for every call (and a closure with it), made
    once: a build dumps a small value for every event of each export and API document. Without
    the circular-reference markers (every value dumped here is a tree made for it: a cycle would
    still fail, with RecursionError). None where the interpreter has no C accelerator (`encode`
    is then the pure-Python one)."""
    make = getattr(encoder, "c_make_encoder", None)
    if make is None:
        return None
    made: Callable[[object, int], tuple[str, ...]] = make(
        None, _ENCODER.default, encoder.encode_basestring, None, ":", ",", False, False, True
    )
    return made


_C_CHUNKS = _chunks()


def dumps(value: object) -> str:
    """`value` as compact JSON text."""
    if _C_CHUNKS is None:
        return _ENCODER.encode(value)
    return "".join(_C_CHUNKS(value, 0))
