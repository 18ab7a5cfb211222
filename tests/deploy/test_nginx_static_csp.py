"""deploy/nginx's static site sends the Content-Security-Policy `confcal serve` sends, the same
string, with every page of a `confcal build`."""

from __future__ import annotations

from pathlib import Path

import httpx

from server.cli import main
from server.pages.render import CSP
from tests.helpers.nginx_process import DEPLOY, running_nginx


def test_built_pages_are_served_with_the_servers_csp(tmp_path: Path) -> None:
    site, db = tmp_path / "site", tmp_path / "store.sqlite"
    assert main(["build", "--quiet", "--db", str(db), str(site)]) == 0
    config = f"""
    server {{
        listen 127.0.0.1:{{port}};
        server_name localhost;
        root {site};
        index index.html;
        include {DEPLOY / "confcal-static-locations.conf"};
    }}
"""
    session_page = next(p for p in sorted(site.glob("sessions/*/index.html")))

    with running_nginx(tmp_path / "nginx", config) as url:
        replies = [httpx.get(url + path) for path in ("/", "/" + str(session_page.relative_to(site).parent) + "/")]

    assert [(r.status_code, r.headers.get("content-security-policy")) for r in replies] == [(200, CSP), (200, CSP)]
