"""The exports' shared layout (feeds/exports/frab_layout.py)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from feeds.exports.frab_layout import clock

zones = st.sampled_from([None, ZoneInfo("Europe/Paris"), ZoneInfo("Asia/Kathmandu"), ZoneInfo("America/St_Johns")])


@given(st.datetimes(timezones=zones))
def test_clock_is_strftimes_hours_and_minutes(moment: datetime) -> None:
    assert clock(moment) == moment.strftime("%H:%M")
