"""The page's static files under content-hashed names, compressed once, cached for a year.

`schedule.css` is served as `static/schedule.3f2a9c81d0e4.css`: the name changes whenever the
bytes do, so a browser may keep a file forever (`immutable`) and a new release is still seen at
once. Each file becomes one `Representation` when first asked for, so its gzip variant and ETag
are computed once per content, not per request. The unhashed names still answer (with a short
cache lifetime) for anything that linked them before.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from feeds import urls
from server.snapshot.conditional import Representation

STATIC = Path(__file__).resolve().parent / "static"
SERVICE_WORKER = Path(__file__).resolve().parent / "templates" / "sw.js"
IMMUTABLE = "public, max-age=31536000, immutable"
TYPES = {
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}


@dataclass(frozen=True)
class Asset:
    name: str  # as in static/: "schedule.css"
    hashed: str  # "schedule.3f2a9c81d0e4.css"
    representation: Representation  # under the hashed name
    plain: Representation  # under the plain name: revalidated, not kept


@lru_cache(maxsize=1)
def assets() -> dict[str, Asset]:
    """Every file of static/, by plain and by hashed name. Read once per process: the files
    ship with the code."""
    found: dict[str, Asset] = {}
    for path in sorted(STATIC.iterdir()):
        media = TYPES.get(path.suffix)
        if media is None or not path.is_file():
            continue
        body = path.read_bytes()
        digest = hashlib.sha256(body).hexdigest()[:12]
        hashed = f"{path.stem}.{digest}{path.suffix}"
        asset = Asset(
            path.name,
            hashed,
            Representation(body, media, None, (("cache-control", IMMUTABLE),)),
            Representation(body, media),
        )
        found[path.name] = asset
        found[hashed] = asset
    return found


def asset_path(name: str) -> str:
    """The site-relative path of a static file under its hashed name: `static/schedule.….css`."""
    return urls.static(assets()[name].hashed)


def lookup(name: str) -> Representation | None:
    """What `static/{name}` answers, or None."""
    asset = assets().get(name)
    if asset is None:
        return None
    return asset.representation if name == asset.hashed else asset.plain


def static_files() -> list[tuple[str, bytes]]:
    """For `confcal build`: every asset under its hashed and its plain name."""
    out: list[tuple[str, bytes]] = []
    for name, asset in sorted(assets().items()):
        out.append((urls.static(name), asset.representation.body))
    return out


@lru_cache(maxsize=1)
def service_worker() -> Representation:
    """`sw.js` at the conference's base path (its scope), naming the hashed files to keep. It is
    revalidated on every visit (no-cache), so a new release reaches every browser."""
    names = sorted({a.hashed for a in assets().values()})
    version = hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]
    precache = ["./", *(urls.static(name) for name in names)]
    body = (
        SERVICE_WORKER.read_text(encoding="utf-8")
        .replace("__ASSETS__", json.dumps(precache))
        .replace("__VERSION__", version)
    )
    return Representation(body.encode("utf-8"), TYPES[".js"], None, (("cache-control", "no-cache"),))
