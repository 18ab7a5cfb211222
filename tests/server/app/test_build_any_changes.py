"""Any sequence of ingests and rebuilds (tests/helpers/schedule_changes.py): each rebuild rewrites
exactly the files whose bytes changed (every other file keeps its inode and modification time),
says so, and leaves the site, file for file and directory for directory, what a fresh build of
the same store writes. The store's own path is taken (ingest, versions, `confcal build`'s loader
and changelog); sometimes the build's record is lost in between."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import settings
from hypothesis.stateful import rule

from server.site.build_conferences import Built
from server.site.build_record import PARTS, RECORD
from tests.helpers.build_inspection import build_store, directories, file_states
from tests.helpers.schedule_changes import ScheduleChanges


class Rebuilds(ScheduleChanges):
    def __init__(self) -> None:
        super().__init__()
        self.fresh_builds = 0
        self.build(self.site)

    def build(self, out: Path) -> Built:
        # In this process: a site this small has too few files to fork a worker for
        # (test_build_workers.py tests the workers).
        return build_store(self.store, out, now=self.now, base_url=self.base, default=self.default)

    @property
    def site(self) -> Path:
        return self.root / "site"

    def check(self) -> None:
        self.rebuild()

    @rule()
    def lose_the_record(self) -> None:
        # The next build then compares what it makes with the files there instead.
        (self.root / RECORD.format("site")).unlink(missing_ok=True)
        shutil.rmtree(self.root / PARTS.format("site"), ignore_errors=True)

    @rule()
    def rebuild(self) -> None:
        before = file_states(self.site)

        built = self.build(self.site)

        after = file_states(self.site)
        changed = {path for path, (body, _, _) in after.items() if path not in before or before[path][0] != body}
        unchanged = {path: found[1:] for path, found in after.items() if path not in changed}
        assert sorted(built.changed) == sorted(changed)
        assert unchanged == {path: before[path][1:] for path in unchanged}  # not written again
        assert ({path: body for path, (body, _, _) in after.items()}, directories(self.site)) == self.fresh_build()

    def fresh_build(self) -> tuple[dict[str, bytes], set[str]]:
        """Every file and directory of a build of the store into an empty directory, now."""
        self.fresh_builds += 1
        fresh = self.root / f"fresh-{self.fresh_builds}"
        self.build(fresh)
        found = {path: body for path, (body, _, _) in file_states(fresh).items()}, directories(fresh)
        shutil.rmtree(fresh)
        (self.root / RECORD.format(fresh.name)).unlink()
        shutil.rmtree(self.root / PARTS.format(fresh.name), ignore_errors=True)
        return found


# A step may build twice (its rebuild and a fresh build to compare with): twenty runs of eight
# steps keep this within the suite's budget.
Rebuilds.TestCase.settings = settings(max_examples=20, stateful_step_count=8)
test_after_any_changes_a_rebuild_writes_only_changed_bytes_and_is_a_fresh_build = Rebuilds.TestCase
