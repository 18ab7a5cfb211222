"""`confcal build OUTDIR`: the static site holds the bytes the server answers for the same paths."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import anyio
import httpx
import pytest

from feeds.model import Conference
from server.app import create_app
from server.app.demo import demo_schedule
from server.cli import main
from server.store import Store

BASE = "https://cal.example.org"


SECOND = Conference("Second Conf", "Europe/Berlin", date(2026, 6, 1), date(2026, 6, 2))
DEMO = "pytorch-conference-europe-2026"


def served(
    store: Store, paths: list[str], base_url: str | None, default: str | None = None
) -> dict[str, bytes]:
    """GET each path from the app (identity encoding), in process."""
    app = create_app(store, base_url=base_url, default=default)

    async def fetch() -> dict[str, bytes]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8080"
        ) as client:
            return {
                p: (
                    await client.get(p, headers={"accept-encoding": "identity"})
                ).content
                for p in paths
            }

    return anyio.run(fetch)


def site_files(outdir: Path) -> dict[str, Path]:
    """URL path -> file, for every generated file (an index.html is served at its folder)."""
    files = {}
    for file in sorted(outdir.rglob("*")):
        if file.is_file():
            relative = file.relative_to(outdir).as_posix()
            files["/" + relative.removesuffix("index.html")] = file
    return files


def test_build_writes_the_bytes_the_server_serves(tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"

    code = main(["build", "--db", db, str(out), "--base-url", BASE])

    assert code == 0
    files = site_files(out)
    with Store.open(db) as store:
        answers = served(store, list(files), BASE)
    assert {path: file.read_bytes() for path, file in files.items()} == answers


def two_conferences(db: str) -> None:
    with Store.open(db) as store:
        store.ingest(demo_schedule())
        store.ingest(dataclasses.replace(demo_schedule(), conference=SECOND))


@pytest.mark.parametrize("default", [None, "second-conf"])
def test_build_writes_every_conference_as_the_server_serves_it(
    tmp_path: Path, default: str | None
) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    two_conferences(db)

    code = main(
        ["build", "--db", db, str(out), "--base-url", BASE]
        + (["--default", default] if default else [])
    )

    assert code == 0
    files = site_files(out)
    with Store.open(db) as store:
        answers = served(store, list(files), BASE, default)
    assert {path: file.read_bytes() for path, file in files.items()} == answers
    listed = json.loads((out / "api" / "conferences").read_bytes())["conferences"]
    assert [c["url"] for c in listed] == [f"/c/{DEMO}/", "/c/second-conf/"]
    root = json.loads((out / "api" / "feeds").read_bytes())["feeds"][0]["url"]
    second = json.loads((out / "c/second-conf/api/feeds").read_bytes())["feeds"][0]
    assert second["url"] == ("/feeds/all.ics" if default else "/c/second-conf/feeds/all.ics")
    assert root == "/feeds/all.ics"
    assert (out / "c/second-conf/schedule.xml").read_bytes().startswith(b"<?xml")
    assert (out / "index.html").read_bytes() == (
        out / "c" / (default or DEMO) / "index.html"
    ).read_bytes()


def test_build_refuses_a_default_not_in_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["build", "--db", str(tmp_path / "s.sqlite"), str(tmp_path / "site"), "--default", "nope"]
    )

    assert code == 1
    assert capsys.readouterr().err == (
        "confcal build: no --base-url; subscribe links point at http://127.0.0.1:8080\n"
        "confcal build: error: --default nope: no such conference in the store\n"
    )


def test_build_writes_feeds_sessions_api_and_index(tmp_path: Path) -> None:
    out = tmp_path / "site"

    main(
        ["build", "--db", str(tmp_path / "store.sqlite"), str(out), "--base-url", BASE]
    )

    feeds = json.loads((out / "api" / "feeds.json").read_bytes())["feeds"]
    sessions = json.loads((out / "api" / "sessions").read_bytes())["sessions"]
    assert (out / "feeds" / "all.ics").is_file()
    assert all((out / f["url"].lstrip("/")).is_file() for f in feeds)
    assert len(sessions) == 28
    assert all((out / s["ics"].lstrip("/")).is_file() for s in sessions)
    assert (
        (out / "index.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    )
    assert (out / "static" / "style.css").is_file()
    assert feeds[0]["webcal"] == "webcal://cal.example.org/feeds/all.ics"


def test_rebuild_rewrites_nothing_and_drops_stale_feeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "site"
    main(["build", "--db", db, str(out), "--base-url", BASE])
    stale = out / "feeds" / "speaker" / "someone-gone.ics"
    stale.write_bytes(b"BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n")
    unrelated = out / "CNAME"
    unrelated.write_text("cal.example.org\n")
    capsys.readouterr()

    main(["build", "--db", db, str(out), "--base-url", BASE])

    assert "; 0 files written" in capsys.readouterr().out
    assert not stale.exists()
    assert unrelated.exists()


def test_without_base_url_links_point_at_the_default_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"

    main(["build", "--db", str(tmp_path / "store.sqlite"), str(out)])

    feeds = json.loads((out / "api" / "feeds").read_bytes())["feeds"]
    assert feeds[0]["webcal"] == "webcal://127.0.0.1:8080/feeds/all.ics"
    assert "no --base-url" in capsys.readouterr().err


@pytest.mark.parametrize(
    "bad",
    ["cal.example.org", "ftp://cal.example.org", "https://", "https://x.org/?a=b"],
)
def test_bad_base_url_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "build",
                "--db",
                str(tmp_path / "store.sqlite"),
                str(tmp_path / "site"),
                "--base-url",
                bad,
            ]
        )

    assert exit_info.value.code == 2


@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_malformed_default_is_a_usage_error(tmp_path: Path, command: str) -> None:
    out = [str(tmp_path / "site")] if command == "build" else []

    with pytest.raises(SystemExit) as exit_info:
        main([command, "--db", str(tmp_path / "s.sqlite"), *out, "--default", "Bad/Slug"])

    assert exit_info.value.code == 2
