"""A feed the warm-up has not reached is rendered in a worker thread, once, however many requests
ask for it at once: meanwhile the event loop answers everything else.

The store holds a generated 5,000-session conference; each test builds a new app over it, whose
snapshot is lazy and never warmed (no lifespan runs in process), so every feed starts cold. The
order in which answers complete is what is checked, never how long anything took.
"""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from feeds.pipeline import load_schedule
from server.snapshot.conditional import Representation
from server.snapshot.live import Live
from server.snapshot.published import Feed, Published
from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import NOW, Http
from tests.helpers.build_inspection import CountedRenders, in_progress
from tests.helpers.sched_pages import write_page

SESSIONS = 5_000


@pytest.fixture(scope="module")
def big_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    folder = tmp_path_factory.mktemp("big")
    write_page(folder / "page.txt", SESSIONS, edition=0)
    store = Store.open(str(folder / "store.sqlite"))
    store.ingest(load_schedule([str(folder / "page.txt")], "Europe/Paris").schedule, now=NOW)
    yield store
    store.close()


def cold_app(store: Store) -> tuple[Starlette, Feed]:
    """A new app with its snapshot made (lazily: nothing rendered) and its all.ics feed."""
    app = create_app(store, clock=lambda: NOW)
    live: Live = app.state.live
    feed = live.current().feed("all")
    assert feed is not None and not feed.rendered
    return app, feed


def answers_in_order(app: Starlette, feed_requests: int) -> list[tuple[str, int, bytes]]:
    """Send `feed_requests` GETs of all.ics at once and, once its render has started, a GET of
    /healthz: (path, status, body) of each answer in the order they completed."""
    finished: list[tuple[str, int, bytes]] = []

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:

            async def get(path: str) -> None:
                reply = await client.get(path, headers={"accept-encoding": "identity"})
                finished.append((path, reply.status_code, reply.content))

            async with anyio.create_task_group() as tasks:
                for _ in range(feed_requests):
                    tasks.start_soon(get, "/feeds/all.ics")
                # Until the render has started in its thread (or, rendered on the event loop,
                # has finished).
                while in_progress(app.state.feed_renders) == 0 and not finished:
                    await anyio.sleep(0.001)
                await get("/healthz")

    anyio.run(main)
    return finished


def test_a_cold_feed_in_flight_does_not_hold_up_other_requests(big_store: Store) -> None:
    app, feed = cold_app(big_store)

    finished = answers_in_order(app, 1)

    assert [(path, status) for path, status, _ in finished] == [("/healthz", 200), ("/feeds/all.ics", 200)]
    assert finished[1][2] == feed.representation.body


def test_concurrent_requests_for_one_cold_feed_render_it_once_in_one_thread(big_store: Store) -> None:
    # More requests than anyio's worker threads (40): had each taken a thread to wait for the
    # render, the health check would have waited for one too.
    app, feed = cold_app(big_store)

    finished = answers_in_order(app, 50)

    assert feed.renders == 1
    assert [(path, status) for path, status, _ in finished] == [("/healthz", 200)] + [("/feeds/all.ics", 200)] * 50
    assert {body for path, _, body in finished if path != "/healthz"} == {feed.representation.body}


def test_a_rendered_feed_is_answered_without_another_render(big_store: Store) -> None:
    app, feed = cold_app(big_store)
    answers_in_order(app, 1)

    again = [Http(app).get("/feeds/all.ics"), Http(app).get("/c/load-test-conf-2026/feeds/all.ics")]

    assert feed.renders == 1
    assert [reply.status for reply in again] == [200, 200]


def test_after_a_failed_render_a_request_that_waited_for_it_renders_again(small_schedule: Schedule) -> None:
    # The request that started the render gets its error; one that waited for it starts
    # another render instead of reading a feed that was never made.
    real = Published(small_schedule, now=NOW, lazy=True).feeds[0]
    failures = iter([RuntimeError("first render failed")])

    def make() -> Representation:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return real.representation

    feed = Feed(real.spec, real.path, real.sessions, make)
    renders = CountedRenders()
    outcomes: list[str] = []

    async def ask() -> None:
        try:
            rep = await renders.representation(feed)
            outcomes.append(f"{len(rep.body)} bytes")
        except RuntimeError as exc:
            outcomes.append(str(exc))

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(ask)
            tasks.start_soon(ask)

    anyio.run(main)

    assert outcomes == ["first render failed", f"{len(real.representation.body)} bytes"]
    assert (feed.renders, renders.in_progress) == (1, 0)
