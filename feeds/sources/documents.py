"""Reading sources into text documents: files, folders and http(s) URLs, with bounded sizes.

Every source is counted while it is read (a device, a FIFO or a /proc file reports size 0), and a
folder is listed only up to its file-count cap. URLs go through the outbound guard (feeds.outbound).
Bytes are decoded here once: a UTF-8 BOM is dropped and CRLF/CR line endings become LF, so every
parser sees the same text whatever editor or OS the page went through.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from feeds import outbound
from feeds.errors import DeadlineExceeded, LimitExceeded, SourceError

MAX_BYTES = outbound.MAX_BYTES  # one file or URL
MAX_FILES = 1000  # one folder
MAX_TOTAL_BYTES = 5 * MAX_BYTES  # everything one ingest reads
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class Document:
    name: str  # what messages call it: the path as given, or the URL with its userinfo redacted
    text: str
    url: str | None = None  # a URL source without userinfo, safe to store and publish
    validators: outbound.Validators | None = None  # a URL's ETag and Last-Modified, for a refresh


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


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(_CHUNK):
        yield chunk


def read_path(path: Path, name: str | None = None, *, limit: int = MAX_BYTES) -> Document:
    label = name or str(path)
    try:
        with path.open("rb") as stream:
            data = outbound.collect(_chunks(stream), limit)
    except LimitExceeded as exc:
        raise LimitExceeded(exc.reason, source=label) from None
    except OSError as exc:
        raise SourceError(f"cannot be read: {exc.strerror or exc}", source=label) from None
    return Document(label, decode(data, label))


def expand(source: str) -> list[str]:
    """A folder stands for the regular, non-hidden files in it, in name order."""
    if outbound.is_url(source):
        return [source]
    path = Path(source)
    if path.is_dir():
        try:
            entries = (p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            files = sorted(str(p) for p in itertools.islice(entries, MAX_FILES + 1))
        except OSError as exc:
            raise SourceError(f"cannot be read: {exc.strerror or exc}", source=source) from None
        if not files:
            raise SourceError("is an empty folder", source=source)
        if len(files) > MAX_FILES:
            raise LimitExceeded(f"holds more than {MAX_FILES} files, the limit", source=source)
        return files
    if not path.exists():
        raise SourceError("no such file or folder", source=source)
    return [source]


def _policy(allow_private: bool, limit: int) -> outbound.Policy:
    return outbound.Policy(allow_private=allow_private, max_bytes=limit)


def refresh(
    url: str,
    validators: outbound.Validators | None,
    *,
    allow_private: bool = False,
    limit: int = MAX_BYTES,
    credentials: outbound.Credentials | None = None,
) -> Document | outbound.NotModified:
    """Fetch a URL source again, conditionally when `validators` (from the Document of the last
    fetch) are given: NotModified means the stored copy is current."""
    result = outbound.fetch(url, _policy(allow_private, limit), validators=validators, credentials=credentials)
    if isinstance(result, outbound.NotModified):
        return result
    name = outbound.redact(url)
    return Document(name, decode(result.body, name), url=outbound.without_userinfo(url), validators=result.validators)


def fetch(
    url: str, *, allow_private: bool = False, limit: int = MAX_BYTES, credentials: outbound.Credentials | None = None
) -> Document:
    document = refresh(url, None, allow_private=allow_private, limit=limit, credentials=credentials)
    assert isinstance(document, Document)  # no validators sent, so never NotModified
    return document


def read_one(item: str, *, allow_private: bool = False, limit: int = MAX_BYTES) -> Document:
    """One file or URL (an item `expand` returned)."""
    if outbound.is_url(item):
        return fetch(item, allow_private=allow_private, limit=limit)
    return read_path(Path(item), limit=limit)


def read(source: str, *, allow_private: bool = False) -> list[Document]:
    return read_all([source], allow_private=allow_private)


def read_all(sources: Sequence[str], *, allow_private: bool = False, total: int = MAX_TOTAL_BYTES) -> list[Document]:
    """Every source of one ingest: each file or URL under MAX_BYTES, all together under
    MAX_TOTAL_BYTES (a folder of a thousand files at the cap would otherwise fill the memory)."""
    documents: list[Document] = []
    left = total
    for item in (item for source in sources for item in expand(source)):
        try:
            document = read_one(item, allow_private=allow_private, limit=min(MAX_BYTES, left))
        except LimitExceeded as exc:
            if left >= MAX_BYTES or isinstance(exc, DeadlineExceeded):
                raise
            raise LimitExceeded(
                f"passes the limit of {total} bytes for all sources together", source=exc.source
            ) from None
        left -= len(document.text.encode())
        documents.append(document)
    return documents
