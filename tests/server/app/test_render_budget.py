"""A client asking for feeds with filters or reminders, or for the schedule page with a search,
never asked before spends a budget of the server's time: once spent it is answered 429 with
Retry-After, while what was made already, the plain feeds and page and other clients are
answered as before."""

from __future__ import annotations

import json

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from feeds.model import Schedule
from server.store import Store
from server.web.app import create_app
from server.web.guards import Guards
from server.web.ratelimit import Rate, TokenBuckets
from tests.helpers.app_helpers import NOW, Http, send

# Anything but nothing: the first feed is made, and what it costs leaves the bucket below empty
# for an hour or more.
SPENT_AT_ONCE = Rate(burst=1e-9, per_hour=1e-6)


@pytest.fixture
def app(store: Store, demo_schedule: Schedule) -> Starlette:
    store.ingest(demo_schedule)
    made = create_app(store, clock=lambda: NOW, guards=Guards(render_rate=SPENT_AT_ONCE))
    made.state.live.refresh()
    return made


def test_a_client_that_spent_its_budget_is_answered_429_for_a_feed_not_made_yet(app: Starlette) -> None:
    http = Http(app)
    first = http.get("/feeds/all.ics?alarm=10")

    refused = http.get("/feeds/all.ics?alarm=11")

    assert first.status == 200
    assert refused.status == 429
    assert int(refused.headers["retry-after"]) >= 3600
    assert refused.text.startswith("429 Too Many Requests: too many searches and filtered feeds made for your address")


def test_feeds_already_made_and_plain_feeds_are_answered_whatever_the_budget(app: Starlette) -> None:
    http = Http(app)
    first = http.get("/feeds/all.ics?alarm=10")
    http.get("/feeds/all.ics?alarm=11")

    # Under another name, which no answer was noted for: the route itself answers.
    again = http.get("/feeds/all.ics?alarm=10", host="other.example")
    spelled_otherwise = http.get("/feeds/all.ics?alarm=010")
    plain = http.get("/feeds/all.ics")

    assert (again.status, again.content) == (200, first.content)
    assert (spelled_otherwise.status, spelled_otherwise.content) == (200, first.content)
    assert plain.status == 200


def test_a_malformed_filter_is_still_refused_400_with_the_budget_spent(app: Starlette) -> None:
    http = Http(app)
    http.get("/feeds/all.ics?alarm=10")

    refused = http.get("/feeds/all.ics?alarm=soon")

    assert refused.status == 400


def test_a_search_of_the_schedule_page_counts_against_the_budget(app: Starlette) -> None:
    http = Http(app)
    first = http.get("/?q=keynote")

    refused = http.get("/?q=training")
    plain = http.get("/")
    again = http.get("/?q=keynote")

    assert (first.status, refused.status, plain.status) == (200, 429, 200)
    assert (again.status, again.content) == (200, first.content)


def test_another_client_is_answered_when_one_has_spent_its_budget(app: Starlette) -> None:
    Http(app).get("/feeds/all.ics?alarm=10")
    Http(app).get("/feeds/all.ics?alarm=11")

    other = Http(app, client=("192.0.2.7", 40000)).get("/feeds/all.ics?alarm=11")

    assert other.status == 200


def test_one_clients_feeds_asked_together_are_made_one_after_another(app: Starlette) -> None:
    statuses: list[int] = []

    async def ask(client: httpx.AsyncClient, alarm: int) -> None:
        statuses.append((await client.get(f"/feeds/all.ics?alarm={alarm}")).status_code)

    async def together() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            async with anyio.create_task_group() as tasks:
                for alarm in (10, 11):
                    tasks.start_soon(ask, client, alarm)

    anyio.run(together)

    assert sorted(statuses) == [200, 429]
    assert len(app.state.context.filtered_renders) == 0


def test_a_personal_feed_with_a_reminder_counts_as_a_filtered_feed(app: Starlette) -> None:
    http = Http(app)
    ids = [s["id"] for s in http.get("/api/sessions").json_doc()["sessions"][:3]]
    token = send(app, "POST", "/api/picks", json.dumps({"sessions": ids}).encode()).json_doc()["token"]

    first = http.get(f"/p/{token}.ics?alarm=10")
    refused = http.get(f"/p/{token}.ics?alarm=11")
    plain = http.get(f"/p/{token}.ics")

    assert (first.status, refused.status, plain.status) == (200, 429, 200)


def test_a_charge_may_take_a_bucket_below_empty_and_it_is_earned_back() -> None:
    buckets = TokenBuckets(Rate(burst=10.0, per_hour=360.0))

    buckets.charge("a", 0.0, 12.0)

    assert buckets.wait("a", 0.0) == 20.0  # two seconds short, one earned every ten
    assert buckets.wait("a", 19.0) == 1.0
    assert buckets.wait("a", 20.5) is None
