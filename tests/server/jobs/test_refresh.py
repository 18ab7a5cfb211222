"""One refresh of one source against a real loopback HTTP server, called directly (no queue)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from feeds.demo import DEMO_DIR, DEMO_TZ
from server.jobs.refresh import LEASE, run_refresh
from server.store import Store
from server.store.sources import Outcome, Source, SourceSpec, SourceStore
from tests.helpers.source_server import CHANGED_PAGE, PageServer

NOW = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
DAMAGED = Path(__file__).resolve().parents[2] / "fixtures" / "sched" / "damaged"
CHANGED_TITLE = "Parameterized CUDA Graph Launch in PyTorch: CUDA Graphs Without Any Pain"


def add(store: Store, urls: list[str], **options: object) -> Source:
    spec = SourceSpec(urls=tuple(urls), interval=timedelta(minutes=15), tz=DEMO_TZ, allow_private=True)
    for name, value in options.items():
        spec = SourceSpec(**{**spec.__dict__, name: value})
    return SourceStore(store.engine).add(spec, NOW)


def refresh(store: Store, source: Source, at: datetime = NOW) -> Source:
    done = run_refresh(store, source.id, source.generation, lambda: at)
    assert done is not None
    return done


def titles(store: Store) -> set[str]:
    live = store.live()
    assert live is not None
    return {s.title for s in live.sessions if s.status.value == "confirmed"}


def test_first_refresh_ingests_every_page(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    source = add(store, demo_urls)

    done = refresh(store, source)

    live = store.live()
    assert live is not None and len(live.sessions) == 28
    assert (done.result, done.message) == (Outcome.OK, "version 1: 28 added, 0 changed, 0 cancelled, 0 restored")
    assert (done.generation, done.last_fetch, done.next_run) == (1, NOW, NOW + timedelta(minutes=15))
    assert pages.count(200) == 5


def test_unchanged_source_costs_one_304_per_url(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    first = refresh(store, add(store, demo_urls))

    second = refresh(store, first, NOW + timedelta(minutes=15))

    assert (second.result, second.message) == (Outcome.UNCHANGED, "not modified (304)")
    assert (pages.count(200), pages.count(304)) == (5, 5)
    assert store.version() == 1


def test_changed_page_is_ingested_and_the_unchanged_pages_fetched_whole(
    store: Store, pages: PageServer, demo_urls: list[str]
) -> None:
    first = refresh(store, add(store, demo_urls))
    pages.put("/002_f0fe97cd188ad8b4.txt", CHANGED_PAGE.read_bytes())

    second = refresh(store, first)

    assert second.result == Outcome.OK
    assert second.message is not None and second.message == "version 2: 0 added, 2 changed, 1 cancelled, 0 restored"
    assert CHANGED_TITLE in titles(store)
    # One conditional round (one 200, four 304s), then the four unchanged pages in full.
    assert (pages.count(200), pages.count(304)) == (5 + 1 + 4, 4)


def test_same_bytes_without_validators_are_unchanged(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    first = refresh(store, add(store, demo_urls))
    # Forget the validators, as with a server that sends none: the digest still tells.
    forgotten = SourceStore(store.engine)
    with store.engine.begin() as conn:
        from server.store.tables import sources

        conn.execute(sources.update().values(validators=[[None, None]] * 5))
    again = forgotten.get(first.id)
    assert again is not None

    second = refresh(store, again)

    assert (second.result, second.message) == (Outcome.UNCHANGED, "same content as last applied")
    assert store.version() == 1


def test_damaged_page_is_not_applied(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    first = refresh(store, add(store, demo_urls))
    pages.put("/002_f0fe97cd188ad8b4.txt", b"\x00\x01\x02 binary junk")

    second = refresh(store, first)

    assert second.result == Outcome.REFUSED
    assert second.message == (
        f"not applied, live schedule kept: {pages.base}/002_f0fe97cd188ad8b4.txt: is a binary file, not a schedule page"
    )
    assert store.version() == 1
    # The refused pages' validators were not kept: the next run judges them again.
    assert second.validators == first.validators


def test_page_that_lost_sessions_is_not_applied(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    first = refresh(store, add(store, demo_urls))
    pages.put("/000_6d989ba89a10ee92.txt", (DAMAGED / "truncated.txt").read_bytes())

    second = refresh(store, first)

    assert second.result == Outcome.REFUSED
    assert second.message is not None and second.message.splitlines() == [
        "not applied, live schedule kept: ingest refused: the sources lost data in 1 place, nothing was stored "
        "(fix the sources, or use --force to ingest what could be read):",
        f"  {demo_urls[0]}:100: Jigsaw: Domain and Tensor Parallelism for High-Resolution Input Training: "
        "unreadable time line 'Tuesday April 7, 2026 15:00 - 15:' (not a complete date and time range); "
        "the session is left out",
    ]
    assert store.version() == 1


def test_refresh_that_would_cancel_too_much_is_not_applied(
    store: Store, pages: PageServer, demo_urls: list[str]
) -> None:
    first = refresh(store, add(store, demo_urls))
    lone = pages.put("/one.txt", (DEMO_DIR / "000_6d989ba89a10ee92.txt").read_bytes())
    narrowed = SourceStore(store.engine)
    with store.engine.begin() as conn:
        from server.store.tables import sources

        conn.execute(sources.update().values(urls=[lone], validators=[[None, None]]))
    source = narrowed.get(first.id)
    assert source is not None

    second = refresh(store, source)

    assert second.result == Outcome.REFUSED
    assert second.message is not None and "would cancel" in second.message
    assert store.version() == 1
    assert len(titles(store)) == 28


def test_http_error_is_recorded(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    pages.status["/000_6d989ba89a10ee92.txt"] = 500

    done = refresh(store, add(store, demo_urls))

    assert (done.result, done.message) == (Outcome.ERROR, f"{demo_urls[0]}: HTTP 500")
    assert store.version() == 0


def test_loopback_refused_unless_allowed(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    done = refresh(store, add(store, demo_urls, allow_private=False))

    assert (done.result, done.message) == (
        Outcome.ERROR,
        f"{demo_urls[0]}: host 127.0.0.1 is a private address (127.0.0.1: loopback); "
        "allow private sources explicitly to fetch it",
    )
    assert pages.count(200) == 0


def test_conference_option_files_the_schedule_under_that_slug(
    store: Store, pages: PageServer, demo_urls: list[str]
) -> None:
    refresh(store, add(store, demo_urls, conference="paris-2026"))

    live = store.live("paris-2026")
    assert live is not None and live.conference.slug == "paris-2026"


def test_one_refresh_per_run_across_claims(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    table = SourceStore(store.engine)
    source = add(store, demo_urls)

    held = table.claim(source.id, 0, NOW, LEASE)
    second = table.claim(source.id, 0, NOW, LEASE)
    after_lease = table.claim(source.id, 0, NOW + LEASE + timedelta(seconds=1), LEASE)
    stale = run_refresh(store, source.id, 7, lambda: NOW + 2 * LEASE + timedelta(seconds=2))

    assert held is not None and second is None
    assert after_lease is not None  # a process that died mid-refresh frees the source
    assert stale is None and pages.count(200) == 0


def test_removed_source_is_not_refreshed(store: Store, pages: PageServer, demo_urls: list[str]) -> None:
    source = add(store, demo_urls)
    SourceStore(store.engine).remove(source.id)

    assert run_refresh(store, source.id, 0, lambda: NOW) is None
    assert pages.count(200) == 0
