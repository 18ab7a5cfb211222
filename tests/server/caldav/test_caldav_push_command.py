"""`confcal push` end to end: store -> feed rendering -> a real CalDAV server, and its one-line errors."""

from __future__ import annotations

import base64
import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from icalendar import Calendar

from feeds.urls import session_anchor
from server.caldav.retry import NO_WAIT
from server.cli import main
from server.store import Store
from server.store.picks import PickStore
from tests.helpers.push_helpers import PASSWORD, USER, DavServer, edited, make_schedule, withdrawn
from tests.helpers.sync_helpers import bodies


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "store.db"
    with Store.open(str(path)) as store:
        store.ingest(make_schedule(4))
    yield str(path)


def store_id(db: str, title: str) -> str:
    """The store assigns its own stable IDs (feeds.identity); find one by title."""
    with Store.open(db) as store:
        schedule = store.live()
    assert schedule is not None
    return next(s.id for s in schedule.sessions if s.title == title)


def ids(db: str, *numbers: int) -> list[str]:
    return [store_id(db, f"Talk number {n}") for n in numbers]


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("server.commands.push.RETRY", NO_WAIT)
    monkeypatch.setenv("CALDAV_PASSWORD", PASSWORD)


def push(db: str, calendar: str, *extra: str, password_env: str = "CALDAV_PASSWORD") -> int:
    argv = [
        "push",
        "--calendar",
        calendar,
        "--username",
        USER,
        "--password-env",
        password_env,
        "--db",
        db,
        "--allow-private",  # the test servers listen on loopback
    ]
    return main([*argv, *extra])


def test_push_creates_then_a_repeat_writes_nothing(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = dav_server.new_calendar()

    first = push(db, calendar, "--session", *ids(db, 0, 2))
    writes = dav_server.counts()
    second = push(db, calendar, "--session", *ids(db, 0, 2))

    out, err = capsys.readouterr()
    assert (first, second) == (0, 0)
    assert out.splitlines() == [
        "created 2, updated 0, deleted 0, unchanged 0, conflicts 0",
        "created 0, updated 0, deleted 0, unchanged 2, conflicts 0",
    ]
    titles = {f"{ids(db, n)[0]}@pytorch-conference-europe-2026.confcal": f"Talk number {n}" for n in (0, 2)}
    assert err.splitlines() == [  # the plan runs in UID order
        f"[{i}/2] created {u}  {titles[u]}" for i, u in enumerate(sorted(titles), start=1)
    ]
    assert (dav_server.counts()["PUT"], dav_server.counts()["DELETE"]) == (
        writes["PUT"],
        writes["DELETE"],
    )


def test_cancelled_in_the_store_is_deleted_from_the_calendar(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = dav_server.new_calendar()
    push(db, calendar, "--session", *ids(db, 0, 1))
    with Store.open(db) as store:
        store.ingest(withdrawn(make_schedule(4), "s1"))

    code = push(db, calendar, "--session", *ids(db, 0, 1))

    assert code == 0
    assert capsys.readouterr().out.splitlines()[-1] == "created 0, updated 0, deleted 1, unchanged 1, conflicts 0"


def test_a_run_that_leaves_an_edited_event_alone_exits_3(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = dav_server.new_calendar()
    push(db, calendar, "--session", *ids(db, 0, 1))
    (name,) = [n for n, ics in bodies(calendar).items() if b"SUMMARY:Talk number 1" in ics]
    dav_server.request("PUT", calendar + name, edited(bodies(calendar)[name], "Mine now"))
    capsys.readouterr()

    code = push(db, calendar, "--session", *ids(db, 0))

    out, err = capsys.readouterr()
    assert code == 3
    assert out == "created 0, updated 0, deleted 0, unchanged 1, conflicts 1\n"
    assert err.splitlines()[-1].endswith(": changed in the calendar since the last push; not deleted")


def test_help_names_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["push", "--help"])

    words = " ".join(capsys.readouterr().out.split())
    assert exited.value.code == 0
    assert words.endswith(
        "exit status: 0 done, every event as planned; 1 error; 3 done, but events were left alone "
        "(conflicts, listed on stderr); 4 another sync held the calendar longer than --wait"
    )


def test_dry_run_prints_the_plan_and_writes_nothing(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = dav_server.new_calendar()
    before = dav_server.counts()

    code = push(db, calendar, "--session", *ids(db, 1), "--dry-run")

    assert code == 0
    assert capsys.readouterr().out.splitlines() == [
        f"create {ids(db, 1)[0]}@pytorch-conference-europe-2026.confcal  Talk number 1",
        "plan: create 1, update 0, delete 0, unchanged 0, conflicts 0 (dry run, nothing written)",
    ]
    assert dav_server.counts()["PUT"] == before["PUT"]


def test_wrong_password_is_one_line_and_a_nonzero_exit(
    dav_server: DavServer,
    db: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calendar = dav_server.new_calendar()
    monkeypatch.setenv("WRONG_PASSWORD", "not-the-password-1234")

    code = push(db, calendar, "--session", *ids(db, 0), password_env="WRONG_PASSWORD")

    out, err = capsys.readouterr()
    assert code == 1
    assert (out, err) == (
        "",
        f"confcal push: error: cannot log in to {calendar} (401): wrong user name or password?\n",
    )


def test_collection_that_is_not_a_calendar_is_named(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    dav_server.new_calendar()  # makes sure the principal collection exists

    code = push(db, dav_server.base_url, "--session", *ids(db, 0))

    assert code == 1
    assert capsys.readouterr().err == (
        f"confcal push: error: {dav_server.base_url} is not a calendar collection (find the calendar's own URL)\n"
    )


def test_missing_calendar_is_a_404_line(dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    missing = dav_server.base_url + "no-such-calendar/"

    code = push(db, missing, "--session", *ids(db, 0))

    assert code == 1
    assert capsys.readouterr().err == f"confcal push: error: no calendar at {missing} (404)\n"


def test_refused_connection_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/alice/cal/"

    code = push(db, url, "--session", *ids(db, 0))

    assert code == 1
    assert capsys.readouterr().err == (
        f"confcal push: error: cannot reach {url}: connection failed (gave up after 5 attempts)\n"
    )


def test_credentials_in_the_url_never_reach_the_output(
    radicale: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = radicale.new_calendar().replace("http://", f"http://{USER}:wrong-secret-987@")

    code = main(["push", "--calendar", calendar, "--session", *ids(db, 0), "--db", db])

    assert code == 1
    assert capsys.readouterr() == (
        "",
        "confcal push: error: the calendar URL carries a password; use --password-env or --password-file\n",
    )


def test_unknown_session_is_refused_before_any_request(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = push(db, "http://127.0.0.1:9/unused/", "--session", *ids(db, 0), "nope")

    assert code == 1
    assert capsys.readouterr().err == "confcal push: error: no session 'nope' in PyTorch Conference Europe 2026\n"


def test_password_from_file(radicale: DavServer, db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "secret"
    secret.write_text(PASSWORD + "\n")
    argv = [
        "push",
        "--calendar",
        radicale.new_calendar(),
        "--username",
        USER,
        "--password-file",
        str(secret),
        "--allow-private",
    ]

    code = main([*argv, "--session", *ids(db, 3), "--db", db])

    assert code == 0
    assert capsys.readouterr().out == "created 1, updated 0, deleted 0, unchanged 0, conflicts 0\n"


def test_unset_password_variable_is_one_line(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = push(
        db,
        "http://127.0.0.1:9/unused/",
        "--session",
        *ids(db, 0),
        password_env="CONFCAL_NO_SUCH_VAR",
    )

    assert code == 1
    assert capsys.readouterr().err == "confcal push: error: environment variable CONFCAL_NO_SUCH_VAR is not set\n"


def test_someone_elses_calendar_is_a_403_line(radicale: DavServer, db: str, capsys: pytest.CaptureFixture[str]) -> None:
    others = f"http://127.0.0.1:{radicale.port}/bob/calendar/"  # Radicale: owner_only rights

    code = push(db, others, "--session", *ids(db, 0))

    assert code == 1
    assert capsys.readouterr().err == (
        f"confcal push: error: access to {others} denied (403): the account may not use this calendar\n"
    )


def test_password_never_reaches_output_or_debug_logs(
    radicale: DavServer,
    db: str,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    calendar = radicale.new_calendar()
    caplog.set_level(logging.DEBUG)

    push(db, calendar, "--session", *ids(db, 0, 1))
    push(db, calendar, "--session", *ids(db, 1), "--dry-run")

    out, err = capsys.readouterr()
    assert caplog.records != []
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()  # as in an Authorization header
    assert [text for text in (out, err, caplog.text) if PASSWORD in text or basic in text] == []


def test_picks_token_pushes_exactly_the_picked_sessions(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = dav_server.new_calendar()
    with Store.open(db) as store:
        picks = PickStore(store.engine)
        token = picks.create("pytorch-conference-europe-2026", ids(db, 1, 3)).token

    first = push(db, calendar, "--picks", token)
    with Store.open(db) as store:
        PickStore(store.engine).replace(token, ids(db, 3))
    second = push(db, calendar, "--picks", token)

    out, err = capsys.readouterr()
    assert (first, second) == (0, 0)
    assert out.splitlines() == [
        "created 2, updated 0, deleted 0, unchanged 0, conflicts 0",
        "created 0, updated 0, deleted 1, unchanged 1, conflicts 0",
    ]
    assert token not in out + err


@pytest.mark.parametrize(
    ("by_picks", "default", "page"),
    [
        (False, (), "https://cal.example.org/"),
        (True, (), "https://cal.example.org/"),
        (False, ("--default", "another-conference"), "https://cal.example.org/c/pytorch-conference-europe-2026/"),
    ],
)
def test_base_url_links_each_event_to_its_card_as_the_servers_feeds_do(
    dav_server: DavServer, db: str, by_picks: bool, default: tuple[str, ...], page: str
) -> None:
    calendar = dav_server.new_calendar()
    chosen = ids(db, 0, 2)
    with Store.open(db) as store:
        token = PickStore(store.engine).create("pytorch-conference-europe-2026", chosen).token
    selection = ("--picks", token) if by_picks else ("--session", *chosen)

    code = push(db, calendar, *selection, "--base-url", "https://cal.example.org", *default)

    links = [str(e["URL"]) for ics in bodies(calendar).values() for e in Calendar.from_ical(ics).walk("VEVENT")]
    assert (code, sorted(links)) == (0, sorted(f"{page}#{session_anchor(i)}" for i in chosen))


def test_unknown_picks_token_is_one_line_without_the_token(
    dav_server: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "x" * 24

    code = push(db, dav_server.new_calendar(), "--picks", token)

    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == "confcal push: error: no picks are stored under that token in this store\n"


def test_a_loopback_calendar_is_refused_without_allow_private(
    radicale: DavServer, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    calendar = radicale.new_calendar()
    before = radicale.counts()
    argv = ["push", "--calendar", calendar, "--username", USER, "--password-env", "CALDAV_PASSWORD"]

    code = main([*argv, "--session", *ids(db, 0), "--db", db])

    assert code == 1
    assert capsys.readouterr().err == (
        f"confcal push: error: {calendar}: host 127.0.0.1 is a private address (127.0.0.1: loopback); "
        "allow private sources explicitly to fetch it\n"
    )
    assert radicale.counts() == before
