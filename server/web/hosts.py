"""Which Host header values the server answers (RFC 9110 §7.2), when links follow the request.

Without `--base-url` the page's absolute links (feeds, webcal://, QR codes) are built from the
request's Host, and the rendered page is cached per host. Answering any Host would let a client
put its own host name into links and, by sending a new one each time, keep the cache cold. So
the server answers only the names it was started for and 400 for any other. A name matches
with no port or with the port the connection came in on (`scope["server"]`); an allowed entry
may also name its own port, for a proxy in front that keeps a different one. With a base URL
no link depends on Host, and this check is not installed at all.

Not Starlette's TrustedHostMiddleware: it ignores the port, and a port must be ours or the entry's.
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def split_host(value: str) -> tuple[str, int | None] | None:
    """(name, port) of a Host value (RFC 3986 §3.2.2: reg-name, IPv4 or [IPv6], then
    optionally :port), the name lower-cased and IPv6 without brackets; None if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, rest = value[1:].partition("]")
        if not bracket or not name:
            return None
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    else:
        name, colon, port_text_or_empty = value.partition(":")
        port_text = port_text_or_empty if colon else None
        if not name:
            return None
    if port_text is None:
        return name, None
    if not port_text.isdigit() or len(port_text) > 5 or int(port_text) > 65535:
        return None
    return name, int(port_text)


def allowed_entries(names: Iterable[str]) -> frozenset[tuple[str, int | None]]:
    """The allow list from `--allowed-host` values (`name`, `name:port`, `[v6]:port` or bare
    IPv6); ValueError names a malformed one."""
    entries = set()
    for raw in names:
        text = raw.strip()
        parsed = split_host(f"[{text}]" if text.count(":") > 1 and "[" not in text else text)
        if parsed is None:
            raise ValueError(f"not a host name or address: {raw!r}")
        entries.add(parsed)
    return frozenset(entries)


# Answers remembered per (Host value, port, scheme): a handful in practice. Past this many no
# more are added, so a client sending a new Host each time cannot grow the memory.
_REMEMBER = 256


class AllowedHosts:
    def __init__(self, app: ASGIApp, allowed: frozenset[tuple[str, int | None]]) -> None:
        self.app = app
        self.allowed = allowed
        self._answered: dict[tuple[bytes | None, object, str], bool] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.answers(scope):
            await self.app(scope, receive, send)
            return
        refusal = PlainTextResponse("400 Bad Request: unknown Host\n", status_code=400)
        await refusal(scope, receive, send)

    def answers(self, scope: Scope) -> bool:
        host = next((v for k, v in scope["headers"] if k == b"host"), None)
        server = scope.get("server")
        key = (host, server[1] if server else None, scope["scheme"])
        found = self._answered.get(key)
        if found is None:
            found = self._decide(host, scope)
            if len(self._answered) < _REMEMBER:
                self._answered[key] = found
        return found

    def _decide(self, host: bytes | None, scope: Scope) -> bool:
        if host is None:
            # HTTP/1.0 without Host: links use the listening address, which is ours.
            return True
        parsed = split_host(host.decode("latin-1"))
        if parsed is None:
            return False
        name, port = parsed
        if (name, port) in self.allowed:
            return True
        server = scope.get("server")
        # int(): granian gives the port as a string, uvicorn as the ASGI spec's int.
        own_port = int(server[1]) if server and server[1] else _DEFAULT_PORTS.get(scope["scheme"])
        return (name, None) in self.allowed and port in (None, own_port)
