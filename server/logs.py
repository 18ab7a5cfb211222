"""Logging of the long-running commands: plain text lines (the default) or one JSON object per line
(`--log-format json`) for log collectors, with the same loggers either way.

The access log (`confcal.access`, server.web.access_log) goes to an `AccessHandler`: a line per
request, collected and written a buffer at a time (every FLUSH_INTERVAL_S, when MAX_LINES are
waiting, and when logging shuts down), so the log costs no write system call per request. The
access log hands it finished lines, without a LogRecord (records cost as much as a cached feed's
whole answer); JSON lines carry the fields as keys (`client`, `method`, `path`, `status`,
`duration_ms`, `route`), the path with pick tokens replaced by their tags already, as in the text
line. httpx is held at WARNING: at INFO it logs every request's URL, a source's userinfo
(password) included.
"""

from __future__ import annotations

import copy
import json
import logging
import logging.config
import threading
import time
from datetime import UTC, datetime
from typing import IO, Any

FORMATS = ("text", "json")
LEVELS = ("debug", "info", "warning", "error")

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time (UTC, ISO 8601), level, logger, message, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        extra = {key: value for key, value in record.__dict__.items() if key not in _STANDARD}
        if record.exc_info:
            extra["exception"] = self.formatException(record.exc_info)
        return json_line(record.created, record.levelname, record.name, record.getMessage(), extra)


def json_line(created: float, level: str, logger: str, message: str, extra: dict[str, Any]) -> str:
    """One JSON log line: time (UTC, ISO 8601), level, logger, message, then `extra`'s keys
    (never overriding those four)."""
    entry: dict[str, Any] = {
        "time": datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds"),
        "level": level.lower(),
        "logger": logger,
        "message": message,
    }
    for key, value in extra.items():
        entry.setdefault(key, value)
    return json.dumps(entry, default=str, ensure_ascii=False)


FLUSH_INTERVAL_S = 0.2
MAX_LINES = 512
# Lines waiting, in units of max_lines, at which the caller writes them itself.
_BEHIND = 8
# The text layout of uvicorn's default formatter (without colour), so access lines and the
# server's own lines line up.
TEXT_PREFIX = "INFO:     "


class AccessHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler that writes whole buffers from a daemon thread of its own: lines wait at
    most `interval` seconds, or until `max_lines` are waiting, so the thread serving requests
    never waits for the write (unless the writes fall far behind); `flush()` (called by
    `logging.shutdown` at exit, and by `close`) writes what is left. `line()` takes a finished
    access line (server.web.access_log); records logged the usual way are formatted and buffered
    alike. `json_lines` says which layout `line()` writes: it cannot ask a formatter, having no
    record."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        json_lines: bool = False,
        interval: float = FLUSH_INTERVAL_S,
        max_lines: int = MAX_LINES,
    ) -> None:
        super().__init__(stream)
        self.json_lines = json_lines
        self.interval = interval
        self.max_lines = max_lines
        self._lines: list[str] = []
        self._buffer_lock = threading.Lock()
        self._writing = threading.Lock()
        self._stopped = threading.Event()
        self._full = threading.Event()
        self._flusher: threading.Thread | None = None

    def line(self, message: str, fields: dict[str, Any]) -> None:
        """Buffer one access line: `message` as the text line's message, `fields` for JSON."""
        if self.json_lines:
            text = json_line(time.time(), "info", "confcal.access", message, fields)
        else:
            text = TEXT_PREFIX + message
        self._add(text)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._add(self.format(record))
        except Exception:
            self.handleError(record)

    def _add(self, text: str) -> None:
        # The buffer has its own lock, never held while waiting for another: the handler's lock
        # (held by `handle` around `emit`) and the write lock may be taken around it.
        with self._buffer_lock:
            self._lines.append(text)
            waiting = len(self._lines)
            start = self._flusher is None
            if start:
                self._flusher = threading.Thread(target=self._flush_every, name="access-log", daemon=True)
        if start:
            self._flusher.start()  # type: ignore[union-attr]
        if waiting >= _BEHIND * self.max_lines:
            self.flush()  # the flusher cannot keep up: write here rather than grow
        elif waiting >= self.max_lines:
            self._full.set()  # the flusher writes at once, off the caller's thread

    def _flush_every(self) -> None:
        while not self._stopped.is_set():
            self._full.wait(self.interval)
            self._full.clear()
            self.flush()

    def flush(self) -> None:
        """Write every waiting line, in order, with one write, then flush the stream."""
        with self._writing:
            with self._buffer_lock:
                lines, self._lines = self._lines, []
            if lines and self.stream is not None and not getattr(self.stream, "closed", False):
                self.stream.write(self.terminator.join(lines) + self.terminator)
                self.stream.flush()

    def close(self) -> None:
        self._stopped.set()
        self._full.set()
        self.flush()
        super().close()


def log_config(log_format: str = "text", level: str = "info") -> dict[str, Any]:
    """A `logging.config.dictConfig` for the server (granian applies it in every worker process)
    and the job workers: uvicorn's layout and loggers (its middleware may log), granian's and
    confcal's; access lines on stdout, the rest on stderr. The server's own access log stays off:
    the app writes it without pick tokens."""
    # Here, not with the module: every command reads this module's names with its settings,
    # and only a process that logs as a server needs uvicorn.
    import uvicorn.config

    config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)
    if log_format == "json":
        json_formatter = {"()": f"{__name__}.JsonFormatter"}
        config["formatters"] = {"default": json_formatter, "access": json_formatter}
    upper = level.upper()
    config["handlers"]["confcal_access"] = {
        "()": f"{__name__}.AccessHandler",
        "formatter": "default",
        "stream": "ext://sys.stdout",
        "json_lines": log_format == "json",
    }
    for name in ("uvicorn", "uvicorn.error"):
        config["loggers"][name]["level"] = upper
    # granian's own messages (start, workers, stop), as uvicorn's were: on stderr, this layout.
    config["loggers"]["_granian"] = {"handlers": ["default"], "level": upper, "propagate": False}
    config["loggers"]["confcal"] = {"handlers": ["default"], "level": upper, "propagate": False}
    config["loggers"]["confcal.access"] = {"handlers": ["confcal_access"], "level": upper, "propagate": False}
    config["loggers"]["huey"] = {"handlers": ["default"], "level": upper, "propagate": False}
    config["loggers"]["httpx"] = {"handlers": ["default"], "level": "WARNING", "propagate": False}
    return config


def configure(log_format: str = "text", level: str = "info") -> None:
    """Apply `log_config` to this process (for commands that do not run the server)."""
    logging.config.dictConfig(log_config(log_format, level))
