"""confcal's app as `confcal serve` builds it (the Host allow list for 127.0.0.1), importable by
any ASGI server, for bench/asgi_servers.py, which has the server apply serve's logging
configuration (access log on): CONFCAL_DB names the store (an empty one is seeded with the demo
conference, as serve does)."""

from __future__ import annotations

import os

from server.store import Store
from server.web.app import create_app
from server.web.demo import seed_demo
from server.web.guards import Guards, default_hosts

store = Store.open(os.environ["CONFCAL_DB"])
app = create_app(
    store,
    seed=lambda: seed_demo(store),
    guards=Guards(allowed_hosts=default_hosts("127.0.0.1")),
)
