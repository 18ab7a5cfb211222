"""The HTTP subscription server: feeds, session downloads, JSON API and index page.

`create_app` is imported on first use: the modules `confcal build` and the other commands take
from this package (snapshots, pages, settings) then load without the web app and its jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.app.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from server.app.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
