from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from server.errors import StoreError
from server.store import Store
from server.store.engine import make_engine


def test_plain_path_is_a_sqlite_file(tmp_path: Path) -> None:
    target = tmp_path / "a.sqlite"

    with Store.open(str(target)) as store:
        version = store.version()

    assert version == 0
    assert target.is_file()


def test_missing_directory_is_a_store_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        Store.open(str(tmp_path / "nowhere" / "c.sqlite"))


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("not a database, just some text that is long enough to be read " * 20)

    with pytest.raises(StoreError, match="cannot open store"):
        Store.open(str(target))


def test_unknown_driver_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="cannot open store nosuchdb://"):
        Store.open("nosuchdb://user:secret@localhost/db")


def test_password_is_not_shown_in_errors() -> None:
    with pytest.raises(StoreError) as caught:
        Store.open("nosuchdb://user:secret@localhost/db")

    assert "secret" not in str(caught.value)


def test_a_new_store_another_process_is_writing_is_waited_for_then_turned_to_wal(tmp_path: Path) -> None:
    # Another process's first write to a new file, still in SQLite's rollback journal mode.
    path = tmp_path / "new.sqlite"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE first (x)")
    writer.execute("BEGIN IMMEDIATE")
    done = threading.Timer(0.2, writer.execute, ["COMMIT"])
    done.start()

    with make_engine(f"sqlite:///{path}").connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
    done.join()
    writer.close()

    assert mode == "wal"
