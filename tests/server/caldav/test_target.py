"""What a push is pointed at (server/caldav/target.py): secrets that never show, the operator's
switch for private addresses, and the defaults a run gets when nobody says otherwise."""

from __future__ import annotations

import pytest

from server.caldav.retry import DEFAULT_RETRY
from server.caldav.target import (
    ALLOW_PRIVATE_ENV,
    PickToken,
    SyncOptions,
    Target,
    allow_private_calendars,
)
from server.crypto import Password


@pytest.mark.parametrize(("value", "allowed"), [("1", True), ("0", False), ("true", False), ("", False)])
def test_only_1_allows_private_calendars(value: str, allowed: bool) -> None:
    assert allow_private_calendars({ALLOW_PRIVATE_ENV: value}) is allowed


def test_private_calendars_follow_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ALLOW_PRIVATE_ENV, raising=False)
    unset = allow_private_calendars()
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")

    assert (unset, allow_private_calendars(), allow_private_calendars({})) == (False, True, False)


def test_secrets_show_as_stars_and_compare_by_value() -> None:
    secret = Password("hunter2-long-secret")

    shown = [repr(secret), str(secret), f"{secret}", repr(Target("https://c.example.org/a/", "al", secret))]

    assert shown[:3] == ["Password('***')"] * 3
    assert "hunter2" not in shown[3]
    assert "tok-secret-99" not in repr(PickToken("tok-secret-99"))
    assert (
        secret == Password("hunter2-long-secret"),
        secret == Password("other"),
        secret == "hunter2-long-secret",
    ) == (
        True,
        False,
        False,
    )
    assert hash(secret) == hash(Password("hunter2-long-secret"))


def test_a_run_keeps_owner_edits_and_the_address_rules_unless_told() -> None:
    options = SyncOptions()

    assert (options.overwrite, options.retry, options.allow_private) == (False, DEFAULT_RETRY, False)
    assert (options.timeout, options.deadline, options.lock_wait, options.lock_ttl) == (20.0, 600.0, 300.0, 180.0)
