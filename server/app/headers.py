"""Headers every response carries, whatever route (or error) produced it.

- `X-Content-Type-Options: nosniff`: a browser must take the declared media type, never guess
  HTML or script from a body that holds third-party schedule text (Fetch standard, §3.5).
- `Referrer-Policy: no-referrer`: a personal feed URL is its pick set's only secret; a link
  followed from a page must not carry it to another site in Referer (W3C Referrer Policy §3.1).

Pure ASGI rather than Starlette's BaseHTTPMiddleware: it only appends to the header list of the
response start message, so it costs nothing measurable per request and never buffers a body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
