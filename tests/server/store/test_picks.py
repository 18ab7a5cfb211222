"""The pick store and body parsing on their own: a real SQLite database, no HTTP."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from server.store.picks import (
    MAX_PICKS,
    PicksError,
    PickStore,
    is_token,
    new_token,
    parse_picks,
    pick_store_for,
)


def body(ids: list[str]) -> bytes:
    return json.dumps({"sessions": ids}).encode()


def anything(_: str) -> bool:
    return True


def test_exactly_max_picks_are_accepted() -> None:
    ids = [f"s{n}" for n in range(MAX_PICKS)]

    assert parse_picks(body(ids), anything) == tuple(ids)


def test_one_over_max_picks_is_413() -> None:
    with pytest.raises(PicksError) as raised:
        parse_picks(body([f"s{n}" for n in range(MAX_PICKS + 1)]), anything)

    assert raised.value.status == 413


def test_repeats_do_not_count_against_the_bound() -> None:
    assert parse_picks(body(["a"] * (MAX_PICKS + 10)), anything) == ("a",)


def test_several_unknown_ids_are_all_named_up_to_five() -> None:
    ids = [f"x{n}" for n in range(7)]

    with pytest.raises(PicksError) as raised:
        parse_picks(body(["ok", *ids]), lambda i: i == "ok")

    assert (
        str(raised.value)
        == "unknown session ids 'x0', 'x1', 'x2', 'x3', 'x4' and 2 more"
    )
    assert raised.value.status == 400


def test_store_creates_reads_and_replaces(tmp_path: Path) -> None:
    moments = iter(
        [datetime(2026, 4, 1, 8, tzinfo=UTC), datetime(2026, 4, 1, 9, tzinfo=UTC)]
    )
    store = PickStore(
        create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"),
        clock=lambda: next(moments),
    )

    created = store.create("conf", ["a", "b"])
    replaced = store.replace(created.token, ["c"])

    assert is_token(created.token)
    assert store.get(created.token) == replaced
    assert replaced is not None
    assert (replaced.sessions, replaced.conference) == (("c",), "conf")
    assert replaced.updated == datetime(2026, 4, 1, 9, tzinfo=UTC)


def test_unknown_or_malformed_tokens_find_nothing(tmp_path: Path) -> None:
    store = PickStore(create_engine(f"sqlite:///{tmp_path / 'picks.sqlite'}"))

    assert store.get("A" * 24) is None
    assert store.get("../x") is None
    assert store.replace("A" * 24, ["a"]) is None


def test_the_table_is_created_once_and_kept(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'picks.sqlite'}"
    token = PickStore(create_engine(url)).create("conf", ["a"]).token

    reopened = PickStore(create_engine(url))

    found = reopened.get(token)
    assert found is not None and found.sessions == ("a",)


def test_a_store_without_an_engine_gets_a_private_memory_database() -> None:
    picks = pick_store_for(object())

    token = picks.create("conf", ["a"]).token

    found = picks.get(token)
    assert found is not None and found.sessions == ("a",)


def test_tokens_never_start_with_a_dash_so_the_cli_takes_them_as_values() -> None:
    tokens = [new_token() for _ in range(2000)]

    assert [t for t in tokens if t.startswith("-")] == []
    assert all(is_token(t) for t in tokens)
    assert len(set(tokens)) == 2000
