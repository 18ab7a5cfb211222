"""Log lines (server.logs): JSON objects per record with the record's extra fields, and the
access handler's buffered lines (text or JSON), written by flush, timer, a full buffer or close."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from server.logs import AccessHandler, JsonFormatter, log_config


def test_a_json_line_has_the_message_and_the_extra_fields() -> None:
    record = logging.LogRecord("confcal.access", logging.INFO, __file__, 1, "%s done", ("x",), None)
    record.__dict__.update({"status": 304, "route": "/feeds/{name}"})

    line = json.loads(JsonFormatter().format(record))

    assert {k: line[k] for k in ("level", "logger", "message", "status", "route")} == {
        "level": "info",
        "logger": "confcal.access",
        "message": "x done",
        "status": 304,
        "route": "/feeds/{name}",
    }
    assert line["time"].endswith("+00:00")


def test_httpx_stays_at_warning_whatever_the_level() -> None:
    config = log_config("json", "debug")

    assert config["loggers"]["httpx"]["level"] == "WARNING"
    assert config["loggers"]["confcal.access"]["level"] == "DEBUG"
    assert config["formatters"]["default"] == {"()": "server.logs.JsonFormatter"}


def _wait_for_text(path: Path) -> str:
    for _ in range(500):  # bounded wait for the handler's own timer, not a speed check
        text = path.read_text(encoding="utf-8")
        if text:
            return text
        time.sleep(0.02)
    return ""


def test_access_lines_wait_in_the_buffer_until_flushed(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, interval=3600)
        handler.line('127.0.0.1:1 - "GET / HTTP/1.1" 200', {})
        handler.line('127.0.0.1:1 - "GET /x HTTP/1.1" 404', {})
        before = path.read_text(encoding="utf-8")
        handler.flush()
        after = path.read_text(encoding="utf-8")
        handler.close()

    assert before == ""
    assert after == 'INFO:     127.0.0.1:1 - "GET / HTTP/1.1" 200\nINFO:     127.0.0.1:1 - "GET /x HTTP/1.1" 404\n'


def test_the_handlers_timer_writes_the_buffer(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, interval=0.01)
        handler.line("one", {})
        text = _wait_for_text(path)
        handler.close()

    assert text == "INFO:     one\n"


def test_a_full_buffer_is_written_by_the_flusher_before_its_timer(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, interval=3600, max_lines=2)
        handler.line("0", {})
        handler.line("1", {})  # the buffer is full: written now, not in an hour
        at_two = _wait_for_text(path)
        handler.line("2", {})
        handler.close()
        at_close = path.read_text(encoding="utf-8")

    assert (at_two, at_close) == ("INFO:     0\nINFO:     1\n", "INFO:     0\nINFO:     1\nINFO:     2\n")


def test_json_access_lines_carry_the_fields_like_a_json_record(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, json_lines=True, interval=3600)
        handler.line("GET / 200", {"status": 200, "route": "/", "message": "not this"})
        handler.close()

    line = json.loads(path.read_text(encoding="utf-8"))
    assert {k: v for k, v in line.items() if k != "time"} == {
        "level": "info",
        "logger": "confcal.access",
        "message": "GET / 200",
        "status": 200,
        "route": "/",
    }
    assert line["time"].endswith("+00:00")


def test_records_sent_to_the_access_handler_are_formatted_and_buffered(tmp_path: Path) -> None:
    path = tmp_path / "access.log"
    with path.open("w", encoding="utf-8") as stream:
        handler = AccessHandler(stream, interval=3600)
        handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
        handler.handle(logging.LogRecord("confcal.access", logging.INFO, __file__, 1, "%s", ("x",), None))
        before = path.read_text(encoding="utf-8")
        handler.close()

    assert (before, path.read_text(encoding="utf-8")) == ("", "confcal.access x\n")


def test_serve_logs_access_lines_through_the_access_handler() -> None:
    config = log_config("json", "info")

    assert config["handlers"]["confcal_access"]["()"] == "server.logs.AccessHandler"
    assert config["handlers"]["confcal_access"]["json_lines"] is True
    assert log_config("text", "info")["handlers"]["confcal_access"]["json_lines"] is False
