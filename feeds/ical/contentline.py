"""Content-line folding (RFC 5545 section 3.1): at most 75 octets per physical line, CRLF
line breaks, and a fold never inside a multi-byte UTF-8 character.

icalendar already folds this way; the check here guards the promise against a library change,
and `refold` repairs output if it ever breaks it.
"""

from __future__ import annotations

LIMIT = 75
CRLF = b"\r\n"


def well_folded(data: bytes) -> bool:
    """True if every physical line fits in 75 octets and is whole UTF-8 on its own."""
    for line in data.split(CRLF):
        if len(line) > LIMIT:
            return False
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


def unfold(data: bytes) -> list[bytes]:
    """Logical lines: a CRLF followed by one space or tab is removed (RFC 5545 3.1)."""
    joined = data.replace(CRLF + b" ", b"").replace(CRLF + b"\t", b"")
    return [line for line in joined.split(CRLF) if line]


def fold_line(line: str) -> bytes:
    """One logical line folded to <= 75 octets, continuation lines starting with a space."""
    out: list[bytes] = []
    current = b""
    for char in line:
        encoded = char.encode("utf-8")
        # A continuation line's leading space counts towards its 75 octets.
        room = LIMIT - (1 if out else 0)
        if len(current) + len(encoded) > room:
            out.append(current)
            current = b""
        current += encoded
    out.append(current)
    return (CRLF + b" ").join(out) + CRLF


def refold(data: bytes) -> bytes:
    """`data` with every content line folded afresh by `fold_line`."""
    return b"".join(fold_line(line.decode("utf-8")) for line in unfold(data))


def ensure_folded(data: bytes) -> bytes:
    return data if well_folded(data) else refold(data)
