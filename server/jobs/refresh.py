"""One refresh of one source: fetch its URLs conditionally, and ingest a changed snapshot under the
same rules as `confcal ingest` (feeds.pipeline reads it, Store.ingest refuses a snapshot that would
cancel more than a third of the live sessions). Nothing here knows the job queue: `run_refresh` is
what a refresh job calls, and tests call it directly.

Outcomes (what `confcal source list` shows):
- unchanged: every URL answered 304, or the bytes equal the last applied ones (no new version);
- ok: a new schedule version was stored;
- refused: the pages were fetched but are damaged or would cancel too much; the live schedule stays,
  and the validators are not stored, so the next run fetches and judges the pages again;
- error: a URL could not be fetched (address refused, network, HTTP status).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from feeds import outbound
from feeds.errors import FeedsError, FetchError, LimitExceeded, SourceError
from feeds.sources import documents
from server.errors import IngestRefused, ServerError
from server.store import IngestReport, Store
from server.store.report import no_change_line
from server.store.sources import Finished, Outcome, Source, SourceStore

log = logging.getLogger("confcal.jobs")

# Longer than one refresh can take (each URL's fetch is bounded by its timeout); a process that
# dies mid-refresh holds the source at most this long.
LEASE = timedelta(minutes=10)


def run_refresh(
    store: Store, source_id: int, generation: int, clock: Callable[[], datetime], lease: timedelta = LEASE
) -> Source | None:
    """Claim, refresh and record source `source_id` for run `generation`; None when there is
    nothing to do (removed, run already done, or held by another process)."""
    table = SourceStore(store.engine)
    source = table.claim(source_id, generation, clock(), lease)
    if source is None:
        return None
    try:
        finished = refresh(store, source)
    except ServerError as exc:  # the store itself failed; record it, the next run tries again
        finished = Finished(Outcome.ERROR, str(exc))
    done = table.finish(source, finished, clock())
    log.info("source %d: %s: %s", source.id, finished.outcome.value, finished.message)
    return done


def refresh(store: Store, source: Source) -> Finished:
    private = source.spec.allow_private
    login = SourceStore(store.engine).login(source)
    sent = None if login is None else login.for_urls(source.spec.urls)
    try:
        answers = [
            documents.refresh(
                url,
                validators if validators != outbound.Validators() else None,
                allow_private=private,
                credentials=sent,
            )
            for url, validators in zip(source.spec.urls, source.validators, strict=True)
        ]
        unchanged = [answer.validators for answer in answers if isinstance(answer, outbound.NotModified)]
        if len(unchanged) == len(answers):
            return Finished(Outcome.UNCHANGED, "not modified (304)", tuple(unchanged))
        # Something changed: a snapshot needs every page, so fetch the unchanged ones in full.
        docs = [
            answer
            if isinstance(answer, documents.Document)
            else documents.fetch(url, allow_private=private, credentials=sent)
            for url, answer in zip(source.spec.urls, answers, strict=True)
        ]
    except (FetchError, LimitExceeded) as exc:
        return Finished(Outcome.ERROR, str(exc))
    except SourceError as exc:  # fetched, but not text: empty, binary, not UTF-8
        return Finished(Outcome.REFUSED, f"not applied, live schedule kept: {exc}")
    validators = tuple(doc.validators or outbound.Validators() for doc in docs)
    digest = _digest(docs)
    if digest == source.digest:
        return Finished(Outcome.UNCHANGED, "same content as last applied", validators)
    # The readers of every format load with the first refresh that reads a page, not with the
    # jobs: `confcal serve` starts its server processes once the jobs' modules are in.
    from feeds.pipeline import load_documents, refusal

    try:
        loaded = load_documents(docs, source.spec.tz, format=source.spec.format, conference=source.spec.conference)
        if loaded.defects:  # as `confcal ingest` without --force
            raise IngestRefused(refusal(loaded.defects))
        report = store.ingest(loaded.schedule)
    except (FeedsError, IngestRefused) as exc:
        return Finished(Outcome.REFUSED, f"not applied, live schedule kept: {exc}")
    return Finished(Outcome.OK, _described(report), validators, digest)


def _digest(docs: list[documents.Document]) -> str:
    hashed = hashlib.sha256()
    for doc in docs:
        data = doc.text.encode()
        hashed.update(len(data).to_bytes(8, "big"))
        hashed.update(data)
    return hashed.hexdigest()


def _described(report: IngestReport) -> str:
    if report.no_change:
        return no_change_line(report)
    return (
        f"version {report.version}: {len(report.added)} added, {len(report.changed)} changed, "
        f"{len(report.cancelled)} cancelled, {len(report.restored)} restored"
    )
