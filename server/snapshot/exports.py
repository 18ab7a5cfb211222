"""The schedule for conference apps, at the paths they expect:

    GET /schedule.xml    frab/c3voc schedule.xml   (Giggity, ConfClerk, EventFahrplan)
    GET /schedule.json   c3voc schedule.json       (EventFahrplan, Giggity)

at the root for the default conference and under each conference's base (`/c/{slug}/schedule.xml`).
Rendered by feeds.exports once per published snapshot and base URL (off the event loop: a large
conference is megabytes), memoized on the snapshot like the API documents, and answered through
`conditional.respond` (server.web.feeds_api), so an app polling an unchanged schedule gets a 304.
"""

from __future__ import annotations

from feeds import urls
from feeds.exports import Exporter
from server.links import Site
from server.snapshot.conditional import Representation
from server.snapshot.published import Published, last_modified

# Route -> export format; the names are what frab and pretalx publish, so apps find them by habit.
EXPORT_ROUTES = {urls.ROUTE_SCHEDULE_XML: "frab-xml", urls.ROUTE_SCHEDULE_JSON: "c3voc-json"}


def export_representation(published: Published, site: Site, exporter: Exporter) -> Representation:
    """The export of this snapshot for this base URL, rendered once."""

    def make() -> Representation:
        body = exporter.render(published.schedule, now=published.now, base_url=site.base_url)
        return Representation(body, exporter.media_type, last_modified(published.schedule.sessions))

    return published.memo(("export", exporter.name, site.base_url), make)
