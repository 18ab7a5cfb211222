"""What `confcal serve` hands each server process (server.web.factory builds the app from it),
apart from the app itself: the serving process imports this, not the app, since it only starts
the server and the jobs (the app's modules would slow its start)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

SETTINGS_ENV = "CONFCAL_SERVE_APP"
FACTORY = "server.web.factory:from_environment"


@dataclass(frozen=True)
class AppSettings:
    db: str | None
    base_url: str | None = None
    default: str | None = None
    max_age: int = 300
    poll: float = 0.5
    allowed_hosts: tuple[str, ...] | None = None
    pick_burst: int = 60
    pick_sets_per_hour: float = 600.0
    render_burst: float = 10.0
    render_seconds_per_hour: float = 360.0
    trusted_proxies: tuple[str, ...] = ()  # addresses or networks whose X-Forwarded-For counts

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> AppSettings:
        raw = json.loads(text)
        hosts = raw.pop("allowed_hosts")
        proxies = tuple(raw.pop("trusted_proxies", ()))
        return cls(**raw, allowed_hosts=None if hosts is None else tuple(hosts), trusted_proxies=proxies)
