"""Benchmark: the schedule page's first screen for a 1,000-session conference, in Chromium.

    python bench/page_bench.py [--sessions 1000] [--runs 5]

Generates the conference (bench/generate.py), ingests it into a fresh store, starts
`confcal serve` on loopback and opens the first day's page in Debian's chromium (Playwright) at
phone (390x844) and desktop (1440x900) sizes, each run in a fresh context (nothing cached). It
prints, per size, the median and worst of first contentful paint and largest contentful paint
(the browser's own PerformanceObserver entries, from navigation start), the HTML's bytes as
sent (gzip) and the number of DOM elements. The goal (issue 11): LCP under 1.5 s, HTML under
300 KB gzipped. Measured on loopback: the network is not part of it.

Timings are a benchmark, not a test: they depend on the machine and its load, so run it when
the machine is quiet and read the worst run as well as the median.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the browser and the server are started as the tests start them

from tests.helpers.browser_helpers import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.helpers.serve_process import confcal_command, free_port  # noqa: E402

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1440, "height": 900}}
PAINTS = """
() => new Promise(resolve => {
  const paint = performance.getEntriesByName("first-contentful-paint")[0];
  new PerformanceObserver(list => {
    const entries = list.getEntries();
    resolve({fcp: paint ? paint.startTime : null,
             lcp: entries[entries.length - 1].startTime,
             elements: document.getElementsByTagName("*").length});
  }).observe({type: "largest-contentful-paint", buffered: true});
})
"""


def serve(work: Path, sessions: int) -> tuple[subprocess.Popen[bytes], str]:
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "generate.py"), "--sessions", str(sessions), str(work)],
        check=True,
    )
    db = str(work / "store.sqlite")
    subprocess.run(
        [*confcal_command(), "ingest", "--db", db, "--tz", "Europe/Paris", str(work / "schedule.txt")],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    port = free_port()
    process = subprocess.Popen(
        [*confcal_command(), "serve", "--db", db, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    for _ in range(600):
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.terminate()
    raise SystemExit("confcal serve did not come up")


def measure(url: str, runs: int) -> dict[str, list[dict[str, Any]]]:
    from playwright.sync_api import sync_playwright

    found: dict[str, list[dict[str, Any]]] = {name: [] for name in SIZES}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for _ in range(runs):
            for name, size in SIZES.items():
                context = browser.new_context(viewport=size)
                page = context.new_page()
                page.goto(url, wait_until="load")
                found[name].append(page.evaluate(PAINTS))
                context.close()
        browser.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        process, url = serve(Path(temporary), args.sessions)
        try:
            html = httpx.get(url).content
            days = httpx.get(url + "days/all/")
            results = measure(url, args.runs)
        finally:
            process.terminate()
            process.wait()
    print(
        f"{args.sessions} sessions, first day's page: {len(html):,} bytes, "
        f"{len(gzip.compress(html)):,} gzipped; all days: {len(gzip.compress(days.content)):,} gzipped"
    )
    for name, runs in results.items():
        fcp = [r["fcp"] for r in runs]
        lcp = [r["lcp"] for r in runs]
        print(
            f"{name:8} FCP median {statistics.median(fcp):6.0f} ms worst {max(fcp):6.0f} ms | "
            f"LCP median {statistics.median(lcp):6.0f} ms worst {max(lcp):6.0f} ms | "
            f"{runs[0]['elements']:,} elements"
        )


if __name__ == "__main__":
    main()
