"""Export formats: one module per format, each a class declaring its name, file extension and media
type and turning a `Schedule` into bytes (no I/O, no clock: `now` is passed in).

Every exporter is deterministic: identical content gives identical bytes, so the HTTP layer can
derive a strong ETag from the body and a static build rewrites nothing that did not change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from feeds.model import Schedule


class Exporter(Protocol):
    name: str  # the --format value: "frab-xml", "c3voc-json", "json", "ics"
    extension: str  # without the dot
    media_type: str  # for Content-Type

    def render(self, schedule: Schedule, *, now: datetime, base_url: str | None = None) -> bytes:
        """The whole schedule in this format. `base_url` (e.g. https://cal.example.org) makes links
        absolute; `now` decides which cancelled sessions are still shown (the feeds' grace period)."""
        ...


def _registry() -> dict[str, Exporter]:
    # Imported here: the format modules import this package for nothing but the protocol.
    from feeds.exports.c3voc_json import C3vocJsonExporter
    from feeds.exports.frab_xml import FrabXmlExporter
    from feeds.exports.ics import IcsExporter
    from feeds.exports.neutral_json import NeutralJsonExporter

    found: list[Exporter] = [FrabXmlExporter(), C3vocJsonExporter(), NeutralJsonExporter(), IcsExporter()]
    return {e.name: e for e in found}


EXPORTERS: dict[str, Exporter] = _registry()


def exporter(name: str) -> Exporter | None:
    return EXPORTERS.get(name)


__all__ = ["EXPORTERS", "Exporter", "exporter"]
