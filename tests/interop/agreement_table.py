"""Prints the agreement table (dataset x client): events each client reads at the expected instants,
of the events checked, over every checked feed (tests/interop/datasets.py).

    PYTHONPATH=. python -m tests.interop.agreement_table
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.interop.agreement import agreement
from tests.interop.clients import CLIENTS
from tests.interop.datasets import datasets, feeds


def main() -> int:
    with tempfile.TemporaryDirectory() as work:
        table = agreement(Path(work))
    counts = {d.name: sum(1 for _ in feeds(d)) for d in datasets()}
    head = ["dataset", "feeds", *CLIENTS]
    rows = [
        [name, str(counts[name]), *(f"{row[c].right}/{row[c].checked}" for c in CLIENTS)] for name, row in table.items()
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for line in [head, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))
    wrong = [w for row in table.values() for tally in row.values() for w in tally.wrong]
    for message in wrong:
        print("wrong:", message)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
