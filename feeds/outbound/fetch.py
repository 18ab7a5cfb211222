"""One guarded GET: redirects followed by hand (each hop re-checked, its scheme too), the body
counted while it streams, and conditional requests for sources fetched again (RFC 9110 §13)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from feeds.errors import FetchError, LimitExceeded
from feeds.outbound.addresses import Policy
from feeds.outbound.urls import collect, is_http, redact
from feeds.outbound.validators import Validators

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class Fetched:
    url: str  # the last hop, userinfo redacted
    body: bytes
    validators: Validators


@dataclass(frozen=True)
class Credentials:
    """What a source's own server asks for: HTTP Basic auth (RFC 7617) and/or headers such as an
    API key. They go only to `origins` (scheme, host, port): a redirect to any other origin, or
    from https down to http, is followed without them. repr shows no value."""

    origins: frozenset[tuple[str, str, int]]
    username: str | None = None
    password: str = field(default="", repr=False)
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)

    @staticmethod
    def origin(url: str) -> tuple[str, str, int]:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


@dataclass(frozen=True)
class NotModified:
    """304: the stored copy is current; `validators` are the stored ones, updated by the 304."""

    validators: Validators


def fetch(
    url: str,
    policy: Policy = Policy(),
    *,
    validators: Validators | None = None,
    credentials: Credentials | None = None,
) -> Fetched | NotModified:
    """GET `url` under `policy`, with `credentials` to their own origins. Every failure is a
    FetchError (or subclass) naming the URL with its userinfo redacted."""
    # httpx and the client load here, not with the package: every `confcal` command imports
    # feeds.outbound (redact, Validators) and most never fetch.
    import httpx

    from feeds.outbound.client import guarded_client

    try:
        with guarded_client(policy, deadline=policy.deadline) as client:
            return _follow(client, url, policy, validators, credentials)
    except (FetchError, LimitExceeded) as exc:
        raise type(exc)(exc.reason, source=redact(url)) from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        # The class name stands in for an empty message, so the error always says something.
        raise FetchError(f"cannot be fetched: {redact(str(exc)) or type(exc).__name__}", source=redact(url)) from None


def _follow(
    client: httpx.Client, url: str, policy: Policy, validators: Validators | None, credentials: Credentials | None
) -> Fetched | NotModified:
    # identity: no decompression bomb.
    headers = {"User-Agent": "confcal", "Accept-Encoding": "identity"}
    if validators and validators.etag:
        headers["If-None-Match"] = validators.etag
    if validators and validators.last_modified:
        headers["If-Modified-Since"] = validators.last_modified
    current = _checked(url, "")
    for _ in range(policy.max_redirects + 1):
        extra, auth = _login(credentials, current)
        with client.stream("GET", current, headers={**headers, **extra}, auth=auth) as response:
            if response.is_redirect and "location" in response.headers:
                # httpx has parsed the Location already (an invalid one is an HTTPError)
                target = str(response.url.join(response.headers["location"]))
                current = _checked(target, f"redirects to {redact(target)!r}, which ")
                continue
            if response.status_code == 304 and validators is not None:
                return NotModified(_validators(response, validators))
            if response.status_code != 200:
                raise FetchError(f"HTTP {response.status_code}")
            # Any default that is not digits is the same (a body without it is counted by collect).
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > policy.max_bytes:
                raise LimitExceeded(f"is larger than the limit of {policy.max_bytes} bytes ({declared} declared)")
            body = collect(response.iter_bytes(), policy.max_bytes)
            return Fetched(redact(str(response.url)), body, _validators(response, Validators()))
    raise FetchError(f"more than {policy.max_redirects} redirects")


def _login(credentials: Credentials | None, url: httpx.URL) -> tuple[dict[str, str], tuple[str, str] | None]:
    """The request's extra headers and Basic auth: the credentials', when `url` is one of their
    origins; none for any other (auth None: httpx uses the URL's own userinfo, if it has any, as
    a one-off `confcal ingest` of such a URL does)."""
    if credentials is None or Credentials.origin(str(url)) not in credentials.origins:
        return {}, None
    auth = None if credentials.username is None else (credentials.username, credentials.password)
    return dict(credentials.headers), auth


def _checked(url: str, prefix: str) -> httpx.URL:
    """`url` parsed, if it is an http(s) URL with a host; `prefix` starts the message if not."""
    import httpx  # loaded already by fetch(), the only caller

    if not is_http(url):
        raise FetchError(f"{prefix}is not an http(s) URL")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"{prefix}is not a valid URL ({redact(str(exc))})") from None
    if not parsed.host:
        raise FetchError(f"{prefix}has no host")
    return parsed


def _validators(response: httpx.Response, stored: Validators) -> Validators:
    # A 304 may omit them (RFC 9110 §15.4.5): the stored ones stay. Header names in any case alike.
    return Validators(
        response.headers.get("etag", stored.etag),
        response.headers.get("last-modified", stored.last_modified),
    )
