"""The seven clients read every checked feed of every dataset (tests/interop/datasets.py) at the
expected instants: the agreement table (`python -m tests.interop.agreement_table`) all right."""

from __future__ import annotations

import pytest

from tests.interop.agreement import Tally, agreement
from tests.interop.clients import CLIENTS
from tests.interop.datasets import datasets


@pytest.fixture(scope="module")
def table(icaljs_ready: None, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Tally]]:
    return agreement(tmp_path_factory.mktemp("agreement"))


@pytest.mark.parametrize("dataset", [d.name for d in datasets()])
def test_every_client_reads_every_event_of_every_feed_at_its_instants(
    table: dict[str, dict[str, Tally]], dataset: str
) -> None:
    row = table[dataset]

    assert {c: row[c].wrong for c in CLIENTS} == dict.fromkeys(CLIENTS, ())
    assert {row[c].right == row[c].checked > 0 for c in CLIENTS} == {True}
