"""Invitations by e-mail at scale: from the commit of a new schedule version to the last message,
for 1,000 confirmed addresses, through a local SMTP server.

    python bench/imip_bench.py                          # 1,000 addresses on 20 domains
    python bench/imip_bench.py --addresses 1000 --domains 1 --threads 4

"Change Conf 2026" v1 (tests/fixtures/changes) is stored; each address picks the keynote, the
session v2 moves and the one v2 withdraws, and is confirmed. A real `confcal worker` (`--threads`)
sends through aiosmtpd on loopback with STARTTLS and AUTH (tests/helpers/smtp_server.py):
first the three invitations of every address (the burst after confirmations), then v2 is
ingested as `confcal ingest` does (commit, then queue the jobs it made due) and the clock runs
until the last of the 2 x addresses messages (one REQUEST, one CANCEL each) has arrived. Wall time
of each phase, and the worker's CPU time beside it (the machine is shared). The per-domain pace
(CONFCAL_MAIL_PER_DOMAIN, 600 a minute by default) bounds one domain's share: `--domains 1` shows it.
"""

from __future__ import annotations

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from asgi_servers import cpu_seconds

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the SMTP server is the tests' own (tests/helpers/smtp_server.py)
from feeds.pipeline import load_schedule  # noqa: E402
from server.jobs import jobs_for  # noqa: E402
from server.jobs.triggers import queue_after_ingest  # noqa: E402
from server.store import Store  # noqa: E402
from server.store.invitations import Invitations  # noqa: E402
from server.store.picks import PickStore  # noqa: E402
from tests.helpers.smtp_server import SmtpServer, running_smtp  # noqa: E402

CHANGES = ROOT / "tests" / "fixtures" / "changes"
SLUG = "change-conf-2026"
PICKS = ("Opening Keynote", "Compilers for Everyone", "Graph Breaks Explained")


def arrived(smtp: SmtpServer, count: int, started: float, limit: float) -> float:
    """Seconds from `started` until `count` messages have arrived (polled every 10 ms)."""
    while len(smtp.delivered) < count:
        if time.monotonic() - started > limit:
            raise SystemExit(f"only {len(smtp.delivered)} of {count} messages after {limit:.0f} s")
        time.sleep(0.01)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=1000)
    parser.add_argument("--domains", type=int, default=20)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    logging.getLogger("mail.log").setLevel(logging.ERROR)  # aiosmtpd's notes on every login
    with tempfile.TemporaryDirectory() as work, running_smtp(Path(work)) as smtp:
        db = str(Path(work) / "store.sqlite")
        os.environ["SSL_CERT_FILE"] = str(smtp.ca_file)
        with Store.open(db) as store:
            store.ingest(load_schedule([str(CHANGES / "v1.ics")], "Europe/Paris").schedule)
            live = store.live(SLUG)
            assert live is not None
            ids = [s.id for title in PICKS for s in live.sessions if s.title == title]
            picks, table = PickStore(store.engine), Invitations(store.engine)
            made = time.monotonic()
            for n in range(args.addresses):
                token = picks.create(SLUG, ids).token
                address = f"person{n}@domain{n % args.domains}.example"
                _, code = table.request(SLUG, token, address, "http://cal.example.org", datetime.now(UTC))
                table.confirm(code, datetime.now(UTC))
            print(f"{args.addresses} addresses asked and confirmed in {time.monotonic() - made:.1f} s")
            env = {**os.environ, **smtp.env, "PYTHONPATH": str(ROOT)}
            worker = subprocess.Popen(
                [sys.executable, "-m", "server.cli", "worker", "--db", db, "--threads", str(args.threads)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                time.sleep(2)  # the worker's imports and queue
                cpu, started = cpu_seconds(worker.pid), time.monotonic()
                jobs = jobs_for(store)
                jobs.invitations.queue_due()
                jobs.queue.storage.close()
                first = arrived(smtp, 3 * args.addresses, started, 600)
                first_cpu = cpu_seconds(worker.pid) - cpu
                print(
                    f"burst after confirmation: {3 * args.addresses} invitations in {first:.1f} s "
                    f"(worker CPU {first_cpu:.1f} s)"
                )

                v2 = load_schedule([str(CHANGES / "v2.ics")], "Europe/Paris").schedule
                store.ingest(v2)
                cpu, committed = cpu_seconds(worker.pid), time.monotonic()
                queue_after_ingest(store, SLUG)
                last = arrived(smtp, 5 * args.addresses, committed, 600)
                change_cpu = cpu_seconds(worker.pid) - cpu
                print(
                    f"ingest commit to last message: {2 * args.addresses} messages "
                    f"(one REQUEST, one CANCEL per address) in {last:.1f} s (worker CPU {change_cpu:.1f} s)"
                )
                time.sleep(2)
                print(f"messages in all: {len(smtp.delivered)} (expected {5 * args.addresses})")
            finally:
                worker.terminate()
                worker.wait(timeout=60)


if __name__ == "__main__":
    main()
