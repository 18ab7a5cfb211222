"""Text from schedule sources made safe to print on a terminal.

A page can hold escape sequences (`ESC ] 0 ; title BEL` retitles the window, others move the
cursor or rewrite earlier lines) and bidirectional overrides that make a line read differently from
its bytes. Every command prints data from sources through `safe` (one line) or `safe_lines`: such
characters come out as visible escapes (`\\x1b`, `\\u202e`), everything else unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

_ESCAPED = (
    [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]  # C0, DEL, C1 (C1 0x9B is a one-byte CSI)
    + [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # bidi marks and controls
    + [0x2028, 0x2029]  # line and paragraph separators
)
_TABLE = {code: (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}") for code in _ESCAPED}


def safe(text: str) -> str:
    """`text` as one terminal line: every control or bidi character escaped, newlines included."""
    return text.translate(_TABLE)


def safe_lines(text: str | Iterable[str]) -> str:
    """Lines (a text or the lines themselves) joined by newlines, each line made `safe`."""
    lines = text.split("\n") if isinstance(text, str) else text
    return "\n".join(safe(line) for line in lines)
