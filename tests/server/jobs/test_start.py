"""What `confcal serve`'s starting process loads for its jobs before it starts the server processes:
not the source readers nor the CalDAV client, which the first refresh
and the first sync load."""

from __future__ import annotations

from tests.helpers.loaded import loaded


def test_the_jobs_start_without_the_source_readers_or_the_caldav_client() -> None:
    found = loaded(
        "server.jobs.runner",
        packages=("httpx", "httpcore"),
        modules=("feeds.pipeline", "server.caldav.dav", "server.caldav.service"),
    )

    assert found == []
