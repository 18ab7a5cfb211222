"""The HTTP subscription server: feeds, session downloads, JSON API and index page."""

from __future__ import annotations

from server.app.app import create_app

__all__ = ["create_app"]
