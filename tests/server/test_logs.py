"""JSON log lines (server.logs): one object per record with the record's extra fields."""

from __future__ import annotations

import json
import logging

from server.logs import JsonFormatter, log_config


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
