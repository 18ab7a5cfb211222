"""Hostile bodies against the picks API, through the real app: crafted JSON, arbitrary values and
bytes (Hypothesis), other media types, and a streamed body with no Content-Length. None of them
may produce a 5xx; each malformed one is a 4xx with a JSON error."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette

from server.web.bodies import MAX_PICKS_BODY
from tests.helpers.app_helpers import Reply, send


@pytest.fixture(scope="module")
def token(demo_app: Starlette) -> str:
    created = send(demo_app, "POST", "/api/picks", b'{"sessions": []}')
    assert created.status == 201
    value: str = created.json_doc()["token"]
    return value


def routes(token: str) -> list[tuple[str, str]]:
    return [("POST", "/api/picks"), ("PUT", f"/api/picks/{token}")]


def assert_json_error(reply: Reply, status: int) -> None:
    assert reply.status == status
    assert reply.headers["content-type"] == "application/json"
    assert isinstance(reply.json_doc()["error"], str)


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_4kb_of_nested_arrays_is_400(demo_app: Starlette, token: str, method: str) -> None:
    path = dict(routes(token))[method]

    reply = send(demo_app, method, path, b'{"sessions": ' + b"[" * 2048 + b"]" * 2048 + b"}")

    assert_json_error(reply, 400)
    assert reply.json_doc() == {"error": "request body nests too deeply"}


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_an_integer_of_5000_digits_is_400(demo_app: Starlette, token: str, method: str) -> None:
    path = dict(routes(token))[method]

    reply = send(demo_app, method, path, b'{"sessions": [' + b"7" * 5000 + b"]}")

    assert_json_error(reply, 400)


@pytest.mark.parametrize("method", ["POST", "PUT"])
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_a_cross_site_form_could_send_is_415(
    demo_app: Starlette, token: str, method: str, content_type: str
) -> None:
    # These three need no CORS preflight: another site's page could send them with the
    # visitor's browser.
    path = dict(routes(token))[method]

    reply = send(demo_app, method, path, b'{"sessions": []}', {"content-type": content_type})

    assert_json_error(reply, 415)


def test_a_missing_content_type_is_415(demo_app: Starlette) -> None:
    reply = send(demo_app, "POST", "/api/picks", b'{"sessions": []}', {})

    assert_json_error(reply, 415)


def test_a_put_with_the_wrong_type_changes_nothing(demo_app: Starlette, token: str) -> None:
    before = send(demo_app, "GET", f"/api/picks/{token}", b"").json_doc()

    send(demo_app, "PUT", f"/api/picks/{token}", b'{"sessions": ["x"]}', {"content-type": "text/plain"})

    assert send(demo_app, "GET", f"/api/picks/{token}", b"").json_doc() == before


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_a_streamed_body_over_the_limit_without_length_is_413_unread(
    demo_app: Starlette, token: str, method: str
) -> None:
    sent = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(10_000):  # 640 MB on offer
            sent += 1
            yield b" " * 65536

    reply = send(demo_app, method, dict(routes(token))[method], endless())

    assert_json_error(reply, 413)
    assert reply.json_doc() == {"error": f"request body over {MAX_PICKS_BODY} bytes"}
    # httpx sends a generator chunked, without Content-Length; the app stopped one chunk past
    # the limit (a chunk or two more may sit in the transport's buffer).
    assert sent * 65536 <= MAX_PICKS_BODY + 3 * 65536


json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
bodies = st.one_of(
    json_values.map(lambda v: json.dumps(v).encode()),
    json_values.map(lambda v: json.dumps({"sessions": v}).encode()),
    st.lists(st.text(max_size=20), max_size=8).map(lambda v: json.dumps({"sessions": v}).encode()),
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies, method=st.sampled_from(["POST", "PUT"]))
def test_arbitrary_bodies_never_get_a_server_error(demo_app: Starlette, token: str, body: bytes, method: str) -> None:
    reply = send(demo_app, method, dict(routes(token))[method], body)

    assert reply.status < 500
    if reply.status >= 400:
        assert_json_error(reply, reply.status)
