"""Re-ingest of the real seed pages through the pipeline: tests/fixtures/ingest/original/ holds the
five seed pages, edited/ one of them with a session moved, one retitled and one removed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from feeds.model import Schedule, Session, Status
from feeds.pipeline import load_schedule
from server.errors import IngestRefused
from server.store import Store

INGEST = Path(__file__).resolve().parents[2] / "fixtures" / "ingest"
ORIGINAL = sorted(str(p) for p in (INGEST / "original").glob("*.txt"))
EDITED_PAGE = INGEST / "edited" / "002_f0fe97cd188ad8b4.txt"
EDITED = [str(EDITED_PAGE) if Path(p).name == EDITED_PAGE.name else p for p in ORIGINAL]
TZ = "Europe/Paris"
FIRST = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SECOND = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

MOVED = "Model-Changing Transforms With Torch.compile"
RETITLED_FROM = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without the Pain"
RETITLED_TO = "CUDA Graphs Without the Pain: Parameterized Graph Launch in PyTorch"
REMOVED = "Optimizing PyTorch on CPU-GPU Coherent Platforms"


def ingest(store: Store, sources: list[str], now: datetime, force: bool = False) -> None:
    store.ingest(load_schedule(sources, TZ).schedule, now=now, force=force)


def live(store: Store) -> Schedule:
    snapshot = store.live()
    assert snapshot is not None
    return snapshot


def by_id(snapshot: Schedule) -> dict[str, Session]:
    return {s.id: s for s in snapshot.sessions}


def test_same_pages_twice_change_no_revision(store: Store) -> None:
    ingest(store, ORIGINAL, FIRST)
    before = live(store)

    report = store.ingest(load_schedule(ORIGINAL, TZ).schedule, now=SECOND)

    assert report.empty
    assert report.unchanged == len(before.sessions)
    assert live(store) == before


def test_moved_retitled_removed_keep_ids_and_bump_exactly_three(store: Store) -> None:
    ingest(store, ORIGINAL, FIRST)
    before = by_id(live(store))
    old_ids = {s.title: s.id for s in before.values()}

    report = store.ingest(load_schedule(EDITED, TZ).schedule, now=SECOND)

    after = by_id(live(store))
    assert set(after) == set(before)
    assert report.changed == {old_ids[MOVED]: ("start", "end"), old_ids[RETITLED_FROM]: ("title",)}
    assert report.cancelled == (old_ids[REMOVED],)
    assert report.added == ()
    assert after[old_ids[RETITLED_FROM]].title == RETITLED_TO
    assert after[old_ids[REMOVED]].status is Status.CANCELLED
    bumped = {sid for sid in after if after[sid].revision != before[sid].revision}
    assert bumped == {old_ids[MOVED], old_ids[RETITLED_FROM], old_ids[REMOVED]}
    assert {after[sid].revision for sid in bumped} == {1}


def test_source_that_lost_most_sessions_is_refused_and_live_unchanged(store: Store) -> None:
    ingest(store, ORIGINAL, FIRST)
    before = live(store)

    with pytest.raises(IngestRefused, match="more than a third"):
        ingest(store, [str(EDITED_PAGE)], SECOND)

    assert live(store) == before
    assert store.version() == 1


def test_forced_loss_is_accepted_and_kept_as_cancellations(store: Store) -> None:
    ingest(store, ORIGINAL, FIRST)
    total = len(live(store).sessions)

    ingest(store, [str(EDITED_PAGE)], SECOND, force=True)

    statuses = [s.status for s in live(store).sessions]
    assert len(statuses) == total
    assert statuses.count(Status.CONFIRMED) == 4


@pytest.mark.parametrize(
    "transform",
    [
        pytest.param(lambda b: b.replace(b"\n", b"\r\n"), id="crlf"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b, id="bom"),
        pytest.param(lambda b: b"\xef\xbb\xbf" + b.replace(b"\n", b"\r\n"), id="bom+crlf"),
    ],
)
def test_crlf_and_bom_copies_change_nothing(store: Store, tmp_path: Path, transform: Callable[[bytes], bytes]) -> None:
    ingest(store, ORIGINAL, FIRST)
    before = live(store)
    copies = []
    for name in ORIGINAL:
        copy = tmp_path / Path(name).name
        copy.write_bytes(transform(Path(name).read_bytes()))
        copies.append(str(copy))

    report = store.ingest(load_schedule(copies, TZ).schedule, now=SECOND)

    assert report.empty
    assert live(store) == before
