"""The expiry rule of pick sets as a pure function of dates (no clock, no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from hypothesis import given
from hypothesis import strategies as st

from server.store.expiry import KEEP_AFTER_END, conference_over, expires_at, purge_cutoff


def test_a_conference_is_over_at_midnight_after_its_last_day_in_its_own_zone() -> None:
    assert conference_over(date(2026, 4, 7), "Europe/Paris") == datetime(2026, 4, 7, 22, tzinfo=UTC)
    assert conference_over(date(2026, 6, 10), "America/Chicago") == datetime(2026, 6, 11, 5, tzinfo=UTC)


def test_a_conference_whose_days_change_at_six_is_over_at_six_after_its_last_day() -> None:
    # 38C3's last conference day, 30 December, runs until 06:00 on the 31st (CET, +01:00).
    assert conference_over(date(2024, 12, 30), "Europe/Berlin", time(6)) == datetime(2024, 12, 31, 5, tzinfo=UTC)


def test_a_set_untouched_since_before_the_end_expires_keep_after_the_end() -> None:
    over = datetime(2026, 4, 7, 22, tzinfo=UTC)

    assert expires_at(datetime(2026, 3, 1, tzinfo=UTC), over) == over + KEEP_AFTER_END


def test_a_set_read_after_the_end_lives_keep_after_that_read() -> None:
    over = datetime(2026, 4, 7, 22, tzinfo=UTC)
    read = datetime(2026, 6, 1, tzinfo=UTC)

    assert expires_at(read, over) == read + KEEP_AFTER_END


def test_nothing_of_a_conference_is_purged_before_keep_after_its_end() -> None:
    over = datetime(2026, 4, 7, 22, tzinfo=UTC)

    assert purge_cutoff(over, over + KEEP_AFTER_END - timedelta(seconds=1)) is None
    assert purge_cutoff(over, over + KEEP_AFTER_END) == over


instants = st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC))


@given(last_touch=instants, over=instants, now=instants)
def test_the_purge_cutoff_agrees_with_expires_at(last_touch: datetime, over: datetime, now: datetime) -> None:
    cutoff = purge_cutoff(over, now)

    purged = cutoff is not None and last_touch <= cutoff

    assert purged == (now >= expires_at(last_touch, over))
