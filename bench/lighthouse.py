"""Benchmark: Lighthouse (mobile) on the schedule pages of the demo and of FOSDEM 2025's busiest day.

    python bench/lighthouse.py [--runs 3]

Needs `npm ci --prefix bench/lighthouse` (Lighthouse 12.2.3: 13 wants Node 22) and Debian's
chromium. Ingests FOSDEM 2025 (../shared/data) into a fresh store, starts `confcal serve` for it
and one for the demo on loopback, and runs Lighthouse's default mobile audit (emulated Moto G
power, simulated slow 4G, 4x CPU slowdown) `--runs` times per page, each in a fresh chromium. It
prints, per page, the median of the performance score, total blocking time, largest contentful
paint, cumulative layout shift and DOM elements, and of the accessibility, best practices and SEO
scores. The goals (issue 31): FOSDEM's busiest day performance >= 90, TBT < 300 ms, LCP < 2.5 s;
the demo >= 95; accessibility, best practices and SEO 100.

A benchmark, not a test: the figures depend on the machine and its load (Lighthouse simulates the
network and CPU from what it observes), so run it when the machine is quiet.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the browser and the server are started as the tests start them

from tests.helpers.browser_helpers import CHROMIUM  # noqa: E402
from tests.helpers.paths import SHARED  # noqa: E402
from tests.helpers.serve_process import confcal_command, free_port  # noqa: E402

LIGHTHOUSE = REPO / "bench" / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
FOSDEM = SHARED / "data" / "fosdem_2025_schedule.xml"
FIGURES = {
    "performance": lambda r: r["categories"]["performance"]["score"] * 100,
    "TBT ms": lambda r: r["audits"]["total-blocking-time"]["numericValue"],
    "LCP s": lambda r: r["audits"]["largest-contentful-paint"]["numericValue"] / 1000,
    "CLS": lambda r: r["audits"]["cumulative-layout-shift"]["numericValue"],
    "DOM elements": lambda r: r["audits"]["dom-size"]["numericValue"],
    "accessibility": lambda r: r["categories"]["accessibility"]["score"] * 100,
    "best practices": lambda r: r["categories"]["best-practices"]["score"] * 100,
    "SEO": lambda r: r["categories"]["seo"]["score"] * 100,
}


def serve(work: Path, db: str, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = (work / f"serve-{port}.log").open("wb")
    process = subprocess.Popen(
        [*confcal_command(), "serve", "--db", db, "--port", str(port), "--no-jobs", *extra],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    import httpx

    for _ in range(300):
        try:
            if httpx.get(url + "/", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        import time

        time.sleep(0.1)
    process.terminate()
    raise SystemExit(f"confcal serve did not come up (see {log.name})")


def lighthouse(url: str, out: Path) -> dict[str, Any]:
    subprocess.run(
        [
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={out}",
            f"--chrome-path={CHROMIUM}",
            "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            "--only-categories=performance,accessibility,best-practices,seo",
        ],
        check=True,
    )
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"{LIGHTHOUSE} is missing: npm ci --prefix bench/lighthouse")
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        fosdem_db, demo_db = str(work / "fosdem.sqlite"), str(work / "demo.sqlite")
        subprocess.run([*confcal_command(), "ingest", "--quiet", "--db", fosdem_db, str(FOSDEM)], check=True)
        servers = [serve(work, fosdem_db, "--no-demo"), serve(work, demo_db)]
        try:
            # Saturday is FOSDEM 2025's busiest day (470 of 943 sessions): the front page's day.
            pages = {"FOSDEM busiest day": servers[0][1] + "/", "demo": servers[1][1] + "/"}
            for name, url in pages.items():
                reports = [lighthouse(url, work / f"report-{i}.json") for i in range(args.runs)]
                medians = {figure: statistics.median(read(r) for r in reports) for figure, read in FIGURES.items()}
                shown = ", ".join(f"{figure} {value:g}" for figure, value in medians.items())
                print(f"{name} ({url}), median of {args.runs}: {shown}")
        finally:
            for process, _ in servers:
                process.terminate()
                process.wait(timeout=10)


if __name__ == "__main__":
    main()
