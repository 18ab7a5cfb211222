"""`confcal export --format F [--conference SLUG] OUT`: the stored schedule in each export format."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime
from pathlib import Path

import anyio
import httpx
import pytest

from feeds.demo import DEMO_TZ, demo_sources
from feeds.exports import EXPORTERS
from feeds.model import Conference
from feeds.pipeline import load_schedule
from server.cli import main
from server.store import Store
from server.web.app import create_app
from server.web.demo import demo_schedule

BASE = "https://cal.example.org"
SECOND = Conference("Second Conf", "Europe/Berlin", date(2026, 6, 1), date(2026, 6, 2))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("export") / "store.sqlite")
    with Store.open(path) as store:
        store.ingest(load_schedule(demo_sources(), DEMO_TZ).schedule)
    return path


def get(db: str, path: str, base_url: str | None = None, default: str | None = None) -> bytes:
    with Store.open(db) as store:
        app = create_app(store, base_url=base_url, default=default)

        async def fetch() -> bytes:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8080") as client:
                return (await client.get(path, headers={"accept-encoding": "identity"})).content

        return anyio.run(fetch)


@pytest.mark.parametrize("name", sorted(EXPORTERS))
def test_writes_each_format_to_a_file(db: str, tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"schedule.{EXPORTERS[name].extension}"

    code = main(["export", "--db", db, "--format", name, str(out)])

    assert code == 0
    body = out.read_bytes()
    assert (
        capsys.readouterr().err
        == f"confcal export: pytorch-conference-europe-2026, {name}, {len(body)} bytes to {out}\n"
    )
    assert oct(out.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left behind


def test_ics_is_byte_for_byte_the_all_sessions_feed(db: str, tmp_path: Path) -> None:
    out = tmp_path / "all.ics"

    main(["export", "--db", db, "--format", "ics", str(out)])

    assert out.read_bytes() == get(db, "/feeds/all.ics")


def test_frab_xml_with_base_url_matches_what_the_server_serves(db: str, tmp_path: Path) -> None:
    out = tmp_path / "schedule.xml"

    main(["export", "--db", db, "--format", "frab-xml", "--base-url", "http://127.0.0.1:8080", str(out)])

    assert out.read_bytes() == get(db, "/schedule.xml")


@pytest.mark.parametrize(
    ("default", "path"), [((), "/c/second-conf/schedule.xml"), (("--default", "second-conf"), "/schedule.xml")]
)
def test_another_conference_links_its_sessions_as_the_server_does(
    tmp_path: Path, default: tuple[str, ...], path: str
) -> None:
    two = str(tmp_path / "two.sqlite")
    with Store.open(two) as store:
        store.ingest(demo_schedule())
        store.ingest(dataclasses.replace(demo_schedule(), conference=SECOND))
    out = tmp_path / "schedule.xml"

    main(
        [
            "export",
            "--db",
            two,
            "--conference",
            "second-conf",
            "--format",
            "frab-xml",
            "--base-url",
            BASE,
            *default,
            str(out),
        ]
    )

    assert out.read_bytes() == get(two, path, BASE, *default[1:])


def test_dash_writes_to_stdout(db: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "export",
            "--db",
            db,
            "--format",
            "json",
            "--conference",
            "pytorch-conference-europe-2026",
            "-",
        ],
        capture_output=True,
        check=False,
        env=env,
    )

    assert done.returncode == 0
    assert len(json.loads(done.stdout)["sessions"]) == 28


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--conference", "nope"], "confcal export: error: the store holds no conference 'nope'\n"),
        ([], None),
    ],
)
def test_unknown_conference_or_empty_store_is_one_line(
    db: str, tmp_path: Path, args: list[str], expected: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    store = db if expected else str(tmp_path / "empty.sqlite")

    code = main(["export", "--db", store, "--format", "json", *args, str(tmp_path / "out.json")])

    assert code == 1
    assert capsys.readouterr().err == (
        expected or "confcal export: error: the store holds no schedule; run confcal ingest first\n"
    )
    assert not (tmp_path / "out.json").exists()


def test_frab_xml_through_the_store_keeps_every_event_and_guid(shared_data: Path, tmp_path: Path) -> None:
    db, out = str(tmp_path / "store.sqlite"), tmp_path / "schedule.xml"
    source = shared_data / "ccc_38c3_2024_schedule.xml"

    assert main(["ingest", "--db", db, str(source)]) == 0
    assert main(["export", "--db", db, "--format", "frab-xml", str(out)]) == 0

    assert _events(out.read_bytes()) == _events(source.read_bytes())


def test_build_writes_both_exports_for_static_hosts(db: str, tmp_path: Path) -> None:
    out = tmp_path / "site"

    assert main(["build", "--db", db, str(out), "--base-url", "http://127.0.0.1:8080"]) == 0

    for name in ("schedule.xml", "schedule.json"):
        assert (out / name).read_bytes() == get(db, f"/{name}")
        assert (out / "c" / "pytorch-conference-europe-2026" / name).read_bytes() == (out / name).read_bytes()


def _events(xml: bytes) -> dict[str, tuple[str, datetime, str, str]]:
    """guid -> (title, UTC start, duration, room), read with xml.etree."""
    return {
        e.get("guid") or "": (
            " ".join((e.findtext("title") or "").split()),
            datetime.fromisoformat(e.findtext("date") or "").astimezone(UTC),
            e.findtext("duration") or "",
            e.findtext("room") or "",
        )
        for e in ET.fromstring(xml).iter("event")
    }


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
