"""A real HTTP proxy on 127.0.0.1 in front of a real CalDAV server (tests/helpers/dav_server.py),
for the sync job tests and the scale-out test (tests/deploy): it counts what reaches the server
and misbehaves on cue.

- `writes()`: PUTs and DELETEs forwarded to the server, per resource path (a double write shows
  as a count of 2);
- `fail_puts(statuses, retry_after)`: the next PUTs are answered with these statuses (503, 429
  with Retry-After) without reaching the server, as an overloaded server would;
- `kill_after_put(pid, n)`: once the n-th PUT from now has been stored by the server, the process
  `pid` (a worker) is killed with SIGKILL before it hears the answer: the hardest moment to die
  (`pid` may be a function, asked at that moment, when the test cannot know beforehand which
  worker will be writing);
- `max_in_flight`: the most requests the server was handling at once;
- `hold_until(count, timeout)`: each request waits before it is forwarded until `count` are in
  flight (or `timeout` seconds pass), so that requests a client may overlap do overlap however
  slowly the machine schedules its threads.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler

from tests.helpers.threaded_server import ask_upstream, forwarding_server, passed_on, send_answer


class DavProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._hold: tuple[int, float] | None = None
        self._writes: Counter[str] = Counter()
        self._failures: list[tuple[int, str | None]] = []
        self._kill: int | Callable[[], int] | None = None  # the pid, or who to ask for it
        self._kill_left = 0  # PUTs to let through first
        self._in_flight = 0
        self.max_in_flight = 0
        self._gets_to_close = 0
        self._arrivals: list[float] = []
        self.server = forwarding_server(self._forward)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def writes(self) -> Counter[str]:
        with self._lock:
            return Counter(self._writes)

    def fail_puts(self, statuses: list[int], retry_after: str | None = None) -> None:
        with self._lock:
            self._failures.extend((status, retry_after) for status in statuses)

    def kill_after_put(self, pid: int | Callable[[], int], puts: int = 1) -> None:
        with self._lock:
            self._kill, self._kill_left = pid, puts

    def close_next_gets(self, count: int) -> None:
        """The next `count` GETs are read and their connection closed without an answer, as a
        server closing a kept-alive connection does."""
        with self._lock:
            self._gets_to_close = count

    def hold_until(self, count: int, timeout: float) -> None:
        with self._lock:
            self._hold = (count, timeout)

    def first_request_since(self, moment: float) -> float | None:
        """When (time.monotonic) the first request at or after `moment` arrived, if one did."""
        with self._lock:
            later = [t for t in self._arrivals if t >= moment]
        return min(later) if later else None

    def _forward(self, handler: BaseHTTPRequestHandler) -> None:
        with self._lock:
            self._arrivals.append(time.monotonic())
        method = handler.command
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        if method == "GET":
            with self._lock:
                close, self._gets_to_close = self._gets_to_close > 0, max(0, self._gets_to_close - 1)
            if close:
                handler.close_connection = True
                return
        if method == "PUT":
            with self._lock:
                failure = self._failures.pop(0) if self._failures else None
            if failure is not None:
                status, retry_after = failure
                handler.send_response(status)
                if retry_after is not None:
                    handler.send_header("Retry-After", retry_after)
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
        with self._counting():
            headers = dict(passed_on(handler.headers.items()))
            answer, data = ask_upstream(self.upstream_port, method, handler.path, body, headers)
        if method in ("PUT", "DELETE") and answer.status < 300:
            with self._lock:
                self._writes[f"{method} {handler.path}"] += 1
        if method == "PUT" and self._killed():
            handler.close_connection = True
            return  # stored, never answered: the worker is dead
        send_answer(handler, answer.status, answer.reason, passed_on(answer.getheaders()), data)

    def _killed(self) -> bool:
        with self._lock:
            if self._kill is None:
                return False
            self._kill_left -= 1
            if self._kill_left > 0:
                return False
            pid, self._kill = self._kill, None
        os.kill(pid() if callable(pid) else pid, signal.SIGKILL)
        return True

    @contextmanager
    def _counting(self) -> Iterator[None]:
        with self._changed:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            self._changed.notify_all()
            if self._hold is not None:
                count, timeout = self._hold
                self._changed.wait_for(lambda: self._in_flight >= count, timeout)
        try:
            yield
        finally:
            with self._changed:
                self._in_flight -= 1
                self._changed.notify_all()

    def __enter__(self) -> DavProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
