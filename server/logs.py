"""Logging of the long-running commands: plain text lines (the default) or one JSON object per line
(`--log-format json`) for log collectors, with the same loggers either way.

The access log (`confcal.access`, server.app.access_log) passes its fields as `extra`, so the
JSON lines carry them as keys (`client`, `method`, `path`, `status`, `duration_ms`, `route`);
the path there has pick tokens replaced by their tags already, as in the text line. httpx is held
at WARNING: at INFO it logs every request's URL, a source's userinfo (password) included.
"""

from __future__ import annotations

import copy
import json
import logging
import logging.config
from datetime import UTC, datetime
from typing import Any

import uvicorn.config

FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def log_config(log_format: str = "text", level: str = "info") -> dict[str, Any]:
    """A `logging.config.dictConfig` for uvicorn (which applies it in every worker process) and the
    job workers: uvicorn's loggers plus confcal's, access lines on stdout, the rest on stderr.
    uvicorn's own access log stays off: the app writes it without pick tokens."""
    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    if log_format == "json":
        json_formatter = {"()": f"{__name__}.JsonFormatter"}
        config["formatters"] = {"default": json_formatter, "access": json_formatter}
    upper = level.upper()
    config["handlers"]["confcal_access"] = {
        "class": "logging.StreamHandler",
        "formatter": "default",
        "stream": "ext://sys.stdout",
    }
    for name in ("uvicorn", "uvicorn.error"):
        config["loggers"][name]["level"] = upper
    config["loggers"]["confcal"] = {"handlers": ["default"], "level": upper, "propagate": False}
    config["loggers"]["confcal.access"] = {"handlers": ["confcal_access"], "level": upper, "propagate": False}
    config["loggers"]["huey"] = {"handlers": ["default"], "level": upper, "propagate": False}
    config["loggers"]["httpx"] = {"handlers": ["default"], "level": "WARNING", "propagate": False}
    return config


def configure(log_format: str = "text", level: str = "info") -> None:
    """Apply `log_config` to this process (for commands that do not run uvicorn)."""
    logging.config.dictConfig(log_config(log_format, level))
