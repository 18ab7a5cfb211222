"""The invitations API's answers around the flow: limits on confirmation requests per address
and per client, bad bodies in our words, the option absent without a relay."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.store import Store
from server.web.app import create_app
from tests.helpers.app_helpers import Http
from tests.helpers.caldav_helpers import send_json
from tests.server.mail.conftest import ADDRESS, World, change_conf


def test_one_address_gets_three_confirmations_then_429(world: World) -> None:
    tokens = [world.pick("Opening Keynote") for _ in range(4)]

    answers = [world.ask(token).status for token in tokens]
    refused = world.ask(world.pick("Opening Keynote"))

    assert answers == [202, 202, 202, 429]
    assert refused.headers["retry-after"] == str(int(refused.headers["retry-after"]))
    assert len(world.smtp.delivered) == 3


def test_one_client_asks_for_ten_addresses_then_429(world: World) -> None:
    token = world.pick("Opening Keynote")

    answers = [world.ask(token, f"person{n}@mail.example.net").status for n in range(11)]

    assert answers == [202] * 10 + [429]
    assert world.ask(token).json_doc()["error"].startswith("too many confirmation requests from your address")


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"email": "not an address"}, 422, "email must look like name@example.org"),
        ({"mail": ADDRESS}, 422, 'send {"email": "name@example.org"}'),
        ({"email": 7}, 422, 'send {"email": "name@example.org"}'),
    ],
)
def test_a_bad_body_is_refused_in_our_words(world: World, body: object, status: int, error: str) -> None:
    token = world.pick("Opening Keynote")

    answer = send_json(world.http, "POST", f"/api/picks/{token}/invitations", body)

    assert (answer.status, answer.json_doc()["error"]) == (status, error)
    assert world.smtp.delivered == []


def test_an_unknown_pick_set_is_404(world: World) -> None:
    assert world.ask("A" * 24).status == 404


def test_a_set_already_sent_to_refuses_another_address_with_409(world: World) -> None:
    token = world.pick("Opening Keynote")
    world.subscribed(token, picks=1)

    answer = world.ask(token, "other@mail.example.net")

    assert answer.status == 409


def test_without_a_relay_the_option_is_not_offered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CONFCAL_SMTP_URL", raising=False)
    with Store.open(str(tmp_path / "store.sqlite")) as store:
        store.ingest(change_conf(1))  # type: ignore[arg-type]
        http = Http(create_app(store))
        token = send_json(http, "POST", "/api/picks", {"sessions": []}).json_doc()["token"]

        answers = [
            http.get(f"/api/picks/{token}/invitations"),
            send_json(http, "POST", f"/api/picks/{token}/invitations", {"email": ADDRESS}),
        ]

    assert (answers[0].status, answers[0].json_doc()["offered"]) == (200, False)
    assert (answers[1].status, answers[1].json_doc()["error"]) == (
        404,
        "this server does not send invitations by e-mail",
    )
