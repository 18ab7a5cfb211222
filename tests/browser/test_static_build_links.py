"""A static build (`confcal build`) served as plain files by a host that sends no headers: the
session page of a source with a `javascript:` URL has no such link, and the page's own
Content-Security-Policy <meta> stops a `javascript:` link from running all the same."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from server.pages.render import META_CSP
from tests.helpers.browser_helpers import new_visit
from tests.helpers.link_calendars import two_linked_sessions
from tests.helpers.serve_process import Running, confcal_command, free_port
from tests.helpers.static_host import static_host

if TYPE_CHECKING:
    # Annotations only: without playwright the browser tests skip, so this module must import.
    from playwright.sync_api import Browser

ICS = two_linked_sessions("javascript:document.body.dataset.pwned='yes'", "https://example.org/two")


@pytest.fixture(scope="module")
def static_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Running, Path]]:
    """The build of a store holding the source above, served by Python's http.server (no CSP header)."""
    work = tmp_path_factory.mktemp("static-links")
    source, db, site = work / "links.ics", str(work / "store.sqlite"), work / "site"
    source.write_text(ICS, encoding="utf-8")
    command = confcal_command()
    subprocess.run([*command, "ingest", "--quiet", "--db", db, "--tz", "Europe/Berlin", str(source)], check=True)
    subprocess.run([*command, "build", "--quiet", "--db", db, str(site)], check=True)
    with static_host(site, free_port()) as url:
        yield Running(url, db), site


def session_path(site: Path, title: str) -> str:
    (page,) = [p for p in sorted(site.glob("sessions/*/index.html")) if f"<h1>{title}" in p.read_text("utf-8")]
    return "/" + page.parent.relative_to(site).as_posix() + "/"


def test_the_session_page_has_no_script_link_and_the_csp_meta(
    static_site: tuple[Running, Path], browser: Browser
) -> None:
    served, site = static_site
    visit = new_visit(browser, served)

    visit.open(session_path(site, "Scripted"))
    page = visit.page
    scripted_links = page.locator('a[href^="javascript:" i]').count()
    site_links = page.get_by_text("This session on the conference's site").count()
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    header = httpx.get(served.url + session_path(site, "Scripted")).headers.get("content-security-policy")
    visit.context.close()

    assert (scripted_links, site_links, policy, header) == (0, 0, META_CSP, None)
    assert (visit.console_errors, visit.foreign_requests()) == ([], [])


def test_the_csp_meta_stops_a_script_link_on_a_built_page(static_site: tuple[Running, Path], browser: Browser) -> None:
    served, site = static_site
    visit = new_visit(browser, served)
    visit.open(session_path(site, "Linked"))
    page = visit.page

    page.evaluate(
        """() => {
            const link = document.createElement("a");
            link.href = "javascript:document.body.dataset.pwned='yes'";
            link.textContent = "click";
            document.body.append(link);
            link.click();
        }"""
    )
    page.wait_for_timeout(300)
    pwned = page.evaluate("() => document.body.dataset.pwned ?? null")
    kept_link = page.locator('a[href="https://example.org/two"]').count()
    visit.context.close()

    assert (pwned, kept_link) == (None, 1)
    assert [e.partition(" violates ")[0] for e in visit.console_errors] == ["Running the JavaScript URL"]
