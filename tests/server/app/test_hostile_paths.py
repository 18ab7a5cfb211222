"""Malformed and hostile paths get a short 400/404, never a 500 (raw ASGI scopes, as uvicorn
builds them, so nothing normalises `..` or decodes `%00` before the app sees it)."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from tests.helpers.app_helpers import raw_get

HOSTILE = [
    b"/feeds/../x",
    b"/feeds/..%2F..%2Fetc%2Fpasswd",
    b"/feeds/%2e%2e/%2e%2e/etc/passwd.ics",
    b"/feeds/room/..%2F..%2Fapp.py",
    b"/feeds/room/a%00.ics",
    b"/feeds/%00/x.ics",
    b"/feeds/speaker/%ff%fe.ics",
    b"/feeds/track/" + b"a" * 10_000 + b".ics",
    b"/sessions/" + b"9" * 10_000 + b".ics",
    b"/sessions/../../etc/passwd",
    b"/sessions/%2e%2e%2f%2e%2e%2fetc%2fpasswd.ics",
    b"/sessions/a%00b.ics",
    b"/static/../app.py",
    b"/static/%2e%2e/app.py",
    b"/static/..%2Fapp.py",
    b"/api/feeds/../../x",
    b"//feeds//all.ics",
]


@pytest.mark.parametrize("raw_path", HOSTILE, ids=lambda p: p[:40].decode())
def test_hostile_path_is_a_short_400_or_404(demo_app: Starlette, raw_path: bytes) -> None:
    status, body = raw_get(demo_app, raw_path)

    assert status in (400, 404)
    assert len(body) < 200


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    prefix=st.sampled_from(
        [
            "/",
            "/feeds/",
            "/feeds/room/",
            "/feeds/speaker/",
            "/sessions/",
            "/static/",
            "/api/",
        ]
    ),
    name=st.text(max_size=60),
    suffix=st.sampled_from(["", ".ics", ".json", "/x.ics"]),
)
def test_random_paths_never_fail_the_server(demo_app: Starlette, prefix: str, name: str, suffix: str) -> None:
    raw_path = (prefix + quote(name, safe="/.%") + suffix).encode("ascii")

    status, _ = raw_get(demo_app, raw_path)

    assert status < 500
