"""Reading sources into text documents: files, folders and http(s) URLs, with bounded sizes.

Bytes are decoded here once: a UTF-8 BOM is dropped and CRLF/CR line endings become LF, so every
parser sees the same text whatever editor or OS the page went through.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from feeds.errors import SourceError

MAX_BYTES = 20 * 1024 * 1024
MAX_FILES = 1000


@dataclass(frozen=True)
class Document:
    name: str  # what messages call it: the path as given, or the URL
    text: str
    url: str | None = None


def decode(data: bytes, name: str) -> str:
    if not data.strip():
        raise SourceError("is empty", source=name)
    if b"\x00" in data[:8192]:
        raise SourceError("is a binary file, not a schedule page", source=name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"is not UTF-8 text (byte {exc.start})", source=name) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_path(path: Path, name: str | None = None) -> Document:
    label = name or str(path)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SourceError(f"is {size} bytes; the limit is {MAX_BYTES}", source=label)
        data = path.read_bytes()
    except SourceError:
        raise
    except OSError as exc:
        raise SourceError(f"cannot be read: {exc.strerror or exc}", source=label) from None
    return Document(label, decode(data, label))


def expand(source: str) -> list[str]:
    """A folder stands for the regular, non-hidden files in it, in name order."""
    if source.startswith(("http://", "https://")):
        return [source]
    path = Path(source)
    if path.is_dir():
        files = sorted(str(p) for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise SourceError("is an empty folder", source=source)
        if len(files) > MAX_FILES:
            raise SourceError(f"holds {len(files)} files; the limit is {MAX_FILES}", source=source)
        return files
    if not path.exists():
        raise SourceError("no such file or folder", source=source)
    return [source]


def check_public(url: str) -> None:
    """Refuse URLs whose host resolves to a loopback, private, link-local or reserved address."""
    host = urlsplit(url).hostname
    if not host:
        raise SourceError("URL has no host", source=url)
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError as exc:
        raise SourceError(f"cannot resolve host {host}: {exc}", source=url) from None
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if not address.is_global:
            raise SourceError(
                f"host {host} is a private address ({address}); allow private sources explicitly to fetch it",
                source=url,
            )


def fetch(url: str, *, allow_private: bool = False, timeout: float = 20.0, max_redirects: int = 5) -> Document:
    """GET a page, following redirects by hand so that every hop passes the same address check
    (an automatic redirect could lead a public URL to a private address)."""
    import httpx  # imported here: only URL sources need it

    current = url
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False) as client:
            for _ in range(max_redirects + 1):
                if not current.startswith(("http://", "https://")):
                    raise SourceError(f"redirects to {current!r}, which is not http(s)", source=url)
                if not allow_private:
                    check_public(current)
                with client.stream("GET", current, headers={"User-Agent": "confcal"}) as response:
                    if response.is_redirect and "location" in response.headers:
                        current = str(response.url.join(response.headers["location"]))
                        continue
                    if response.status_code != 200:
                        raise SourceError(f"HTTP {response.status_code}", source=url)
                    return Document(url, decode(_bounded_body(response, url), url), url=url)
            raise SourceError(f"more than {max_redirects} redirects", source=url)
    except httpx.HTTPError as exc:
        raise SourceError(f"cannot be fetched: {exc}", source=url) from None


def _bounded_body(response: Any, url: str) -> bytes:
    chunks, total = [], 0
    for chunk in response.iter_bytes():
        total += len(chunk)
        if total > MAX_BYTES:
            raise SourceError(f"is larger than {MAX_BYTES} bytes", source=url)
        chunks.append(chunk)
    return b"".join(chunks)


def read(source: str, *, allow_private: bool = False) -> list[Document]:
    documents = []
    for item in expand(source):
        if item.startswith(("http://", "https://")):
            documents.append(fetch(item, allow_private=allow_private))
        else:
            documents.append(read_path(Path(item)))
    return documents
