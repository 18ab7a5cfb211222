"""Every checked feed of every dataset read by the seven clients, compared with the expected
instants: the one reading shared by the agreement test and the table script."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from tests.interop.clients import CLIENTS, read_seven
from tests.interop.datasets import Instants, datasets, feeds


@dataclass(frozen=True)
class Tally:
    """For one dataset and one client: events read right, events checked, and the first few wrong."""

    right: int
    checked: int
    wrong: tuple[str, ...]


def agreement(work: Path) -> dict[str, dict[str, Tally]]:
    """{dataset: {client: tally}} over every feed `datasets.feeds` gives, all read in one batch."""
    calendars: dict[str, bytes] = {}
    expected: dict[str, dict[str, Instants]] = {}
    owner: dict[str, str] = {}
    for dataset in datasets():
        for name, data, by_uid in feeds(dataset):
            calendars[name], expected[name], owner[name] = data, dict(by_uid), dataset.name
    starts = [s.start for d in datasets() for s in d.schedule.sessions]
    ends = [s.end for d in datasets() for s in d.schedule.sessions]
    days = (min(starts).date() - timedelta(days=2), max(ends).date() + timedelta(days=2))
    readings = read_seven(calendars, work, days)
    table: dict[str, dict[str, Tally]] = {}
    for dataset in datasets():
        names = [n for n in calendars if owner[n] == dataset.name]
        row = {}
        for client in CLIENTS:
            right, checked = 0, 0
            wrong: list[str] = []
            for name in names:
                read = readings[name][client]
                for event, instants in expected[name].items():
                    checked += 1
                    if read.get(event) == instants:
                        right += 1
                    elif len(wrong) < 3:
                        wrong.append(f"{name} {event}: read {read.get(event)}, expected {instants}")
                extra = set(read) - set(expected[name])
                checked += len(extra)
                wrong.extend(f"{name} {event}: not in the feed" for event in sorted(extra)[: 3 - len(wrong)])
            row[client] = Tally(right, checked, tuple(wrong))
        table[dataset.name] = row
    return table
