"""The one guard for outbound HTTP: URL sources of `ingest` and, through `guarded_client`, CalDAV.

Rules, in the order a fetch meets them:
- only http and https URLs (the scheme is case-insensitive, RFC 3986 §3.1);
- the host is resolved once per connection, and every address it resolves to must be public
  (`refusal` lists the classes refused, after the IANA special-purpose registries, RFC 6890);
  one refused answer refuses the host, so a mixed public/private answer cannot win a race;
- the connection goes to an address that was checked: the check runs inside the network backend's
  connect, so there is no second lookup for DNS rebinding to answer differently. The URL keeps its
  host name, so the Host header and the TLS server name (and certificate check) are unchanged;
- every redirect hop is a new request through the same backend, so it is checked the same way;
- one deadline bounds the whole fetch (connects, TLS, every read and write), so a server dripping
  one byte at a time cannot hold it past the deadline, headers included;
- the body is counted while it streams and cut off at the size cap, with or without Content-Length;
- messages never show a URL's userinfo (`redact`).

Modules: `addresses` (which addresses are refused, the resolver seam), `client` (the pinned,
deadline-bound httpx client), `fetch` (one GET with redirects and conditional requests), `urls`,
`validators` (what a conditional request sends back). httpx and the client load when first used
(`fetch`, `guarded_client`), not with the package, which every `confcal` command imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feeds.outbound.addresses import Policy, Resolver, checked_addresses, refusal, system_resolver
from feeds.outbound.fetch import Credentials, Fetched, NotModified, fetch
from feeds.outbound.urls import MAX_BYTES, collect, is_url, redact, without_userinfo
from feeds.outbound.validators import Validators

if TYPE_CHECKING:
    from feeds.outbound.client import guarded_client


def __getattr__(name: str) -> Any:
    """`guarded_client` loads httpx (slow to import) only when asked for: every `confcal`
    command imports this package, few of them connect anywhere (PEP 562)."""
    if name == "guarded_client":
        from feeds.outbound.client import guarded_client

        return guarded_client
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "MAX_BYTES",
    "Credentials",
    "Fetched",
    "NotModified",
    "Policy",
    "Resolver",
    "Validators",
    "checked_addresses",
    "collect",
    "fetch",
    "guarded_client",
    "is_url",
    "redact",
    "refusal",
    "system_resolver",
    "without_userinfo",
]
