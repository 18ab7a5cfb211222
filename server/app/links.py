"""The links the API and the index page hand out: path, webcal:// subscription, Google Calendar.

The base URL is `--base-url` when configured, else the request's own scheme, host and root path;
a path served under a prefix keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, urlsplit

GOOGLE_SUBSCRIBE = "https://calendar.google.com/calendar/r?cid="


@dataclass(frozen=True)
class Site:
    """Absolute links for one base URL, e.g. `https://cal.example.org` or `http://127.0.0.1:8080/conf`."""

    base_url: str

    @classmethod
    def of(cls, base_url: str) -> Site:
        return cls(base_url.rstrip("/"))

    @property
    def root_path(self) -> str:
        return urlsplit(self.base_url).path.rstrip("/")

    def path(self, relative: str) -> str:
        """The absolute path of a site-relative path: `feeds/all.ics` -> `/feeds/all.ics`."""
        return f"{self.root_path}/{relative}"

    def url(self, relative: str) -> str:
        return f"{self.base_url}/{relative}"

    def webcal(self, relative: str) -> str:
        """The subscription form of the URL: http(s):// replaced with webcal:// (the de-facto scheme
        calendar apps register for subscribing, rather than importing once)."""
        url = self.url(relative)
        scheme, sep, rest = url.partition("://")
        if sep and scheme.lower() in ("http", "https"):
            return f"webcal://{rest}"
        return url

    def google(self, relative: str) -> str:
        return GOOGLE_SUBSCRIBE + quote(self.webcal(relative), safe="")


def checked_base_url(value: str) -> str:
    """A --base-url value: an absolute http(s) URL without query or fragment, trailing `/` dropped.

    Raises ValueError (argparse turns it into a usage error) for anything else.
    """
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"base URL must start with http:// or https:// and name a host: {value!r}"
        )
    if parts.query or parts.fragment:
        raise ValueError(f"base URL cannot have a query or fragment: {value!r}")
    return value.rstrip("/")
