"""The Jinja2 environment every HTML page is rendered with, and relative links.

Pages link to each other, to feeds and to static files with paths relative to the page itself
(`static/…` from the schedule, `../../static/…` from `sessions/{id}/`), so the same bytes work at
the site root, under a conference's base path (`/c/{slug}/`) and from a static build on any host.
Schedule text is third-party input: autoescaping is on for every template.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markupsafe import Markup

from feeds import urls
from feeds.model import Conference
from feeds.web_links import web_link
from server.pages.assets import asset_path

TEMPLATES = Path(__file__).resolve().parent / "templates"

# Every load stays on our origin. Inline style attributes place cards on the grid. Page scripts
# are files, never inline, and nothing is evaluated from a string.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# The same policy in every page's <meta http-equiv>, for a static host that sends no header (a
# `confcal build` served as files): a `javascript:` link that reached a page could not run there
# either. Browsers ignore frame-ancestors in a meta element and log an error for it, so only the
# header (the server's, deploy/nginx's) carries that one.
META_CSP = "; ".join(d for d in CSP.split("; ") if not d.startswith("frame-ancestors"))


class _Compiled(FileSystemBytecodeCache):
    """Jinja's compiled templates kept between processes, in Jinja's own per-user directory
    (made private to the user, refused when anyone else owns it), by each template's source
    checksum and the Jinja and Python versions: compiling the templates is a noticeable part of
    every process that renders pages (a one-change rebuild, a server's first page). A
    directory that cannot be written only means compiling again next time."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled() -> _Compiled | None:
    try:
        return _Compiled()
    except (OSError, RuntimeError):  # no private temporary directory to be had: compile each time
        return None


# The templates are package files, fixed while the process runs: no stat of each template every
# time a page loads it (auto_reload: tens of thousands of stats in a large build).
_env = Environment(
    loader=FileSystemLoader(TEMPLATES),
    auto_reload=False,
    bytecode_cache=_compiled(),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)


def link(up: str, path: str) -> str:
    """The site-relative `path` as a link from a page `up` ("../" per directory) below the
    conference's base path (the base itself is "./" from the base)."""
    return up + path if path else up or "./"


@pass_context
def _rel(context: Context, path: str) -> str:
    """`{{ path|rel }}`: `link` from the page being rendered. A filter, not a global function:
    Jinja calls a filter directly but a function through Context.call, a cost paid on every one
    of a large build's tens of thousands of links."""
    up: str = context["up"]
    return link(up, path)


_env.filters["rel"] = _rel
# A source link becomes an href only when it is http(s) (feeds.web_links), whatever the store holds.
_env.filters["web_link"] = web_link
_env.tests["web_link"] = lambda url: web_link(url) is not None
_env.globals["meta_csp"] = META_CSP


@dataclass(frozen=True)
class Frame:
    """The parts of base.html the same on every page of one conference at one depth
    (_frame.html's macros): its static links, the body's data attributes, the crumbs back to
    the schedule, the footer and the picks bar."""

    head: Markup
    body_data: Markup
    crumbs: Markup
    foot: Markup
    picks: Markup


@lru_cache(maxsize=64)
def frame(conference: Conference, depth: int) -> Frame:
    """The frame of `conference`'s pages `depth` directories down, rendered once: a build's
    session and speaker pages would each render it again otherwise.
    The key is exact: _frame.html reads nothing but the conference and the depth's links (the
    static files' hashed names are read once per process, assets.py), and a conference equals
    another only when every field does."""
    macros = _env.get_template("_frame.html").make_module(_globals(depth, {"conference": conference}))

    def part(name: str) -> Markup:
        return Markup(getattr(macros, name)())

    return Frame(part("head"), part("body_data"), part("crumbs"), part("foot"), part("picks"))


def page_text(template: str, depth: int, context: dict[str, Any]) -> str:
    """A page extending base.html (`context` has its conference), with the conference's frame."""
    frame_of = frame(context["conference"], depth)
    return _env.get_template(template).render(_globals(depth, context), frame=frame_of)


def render(template: str, depth: int, context: dict[str, Any]) -> bytes:
    """`page_text` as the bytes of a response."""
    return page_text(template, depth, context).encode("utf-8")


def fragment(template: str, depth: int, context: dict[str, Any]) -> Markup:
    """`template` rendered as HTML to place in another page rendered at the same `depth`."""
    return Markup(_env.get_template(template).render(_globals(depth, context)))


def _globals(depth: int, context: dict[str, Any]) -> dict[str, Any]:
    up = "../" * depth
    return {
        **context,
        "up": up,
        "urls": urls,
        "asset": lambda name: link(up, asset_path(name)),
    }
