"""What a server process loads to start (server.web.factory): not the job queue nor the CalDAV
client, which it loads when a calendar first needs them."""

from __future__ import annotations

from tests.helpers.loaded import loaded


def test_a_server_process_starts_without_the_job_queue_or_the_caldav_client() -> None:
    found = loaded(
        "server.web.factory",
        packages=("huey", "peewee", "psycopg", "httpx", "httpcore"),
        modules=("server.caldav.dav", "server.caldav.service"),
    )

    assert found == []
