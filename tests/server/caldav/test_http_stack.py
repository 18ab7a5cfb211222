"""The two urllib3s side by side: caldav's niquests runs on urllib3-future, and every other package
(requests for Radicale, dulwich for Xandikos) on the real urllib3 that the lock names. urllib3-future's
wheel would replace the real one at each interpreter start; requirements/lock.sh explains how the
install keeps them apart, and these tests fail on a machine where it did not."""

from __future__ import annotations

import importlib.metadata
import re
import site
import sys
from pathlib import Path

import niquests
import requests.adapters
import urllib3
import urllib3_future

from tests.helpers.paths import ROOT


def locked(name: str) -> str:
    lock = (ROOT / "requirements" / "test.txt").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(name)}==([^\s;]+)", lock, re.M)
    assert found is not None, name
    return found.group(1)


def owner(path: str) -> str:
    """The installed distribution whose RECORD lists the file at `path`."""
    target = Path(path).resolve()
    for dist in importlib.metadata.distributions():
        for file in dist.files or ():
            if Path(str(dist.locate_file(file))).resolve() == target:
                return str(dist.metadata["Name"])
    return "none"


def test_urllib3_is_the_real_one_the_lock_names() -> None:
    version = urllib3.__version__  # type: ignore[attr-defined]  # urllib3 leaves __version__ out of its __all__

    assert (version, owner(urllib3.__file__)) == (locked("urllib3"), "urllib3")


def test_requests_runs_on_the_real_urllib3() -> None:
    pool_module = sys.modules[requests.adapters.PoolManager.__module__]  # type: ignore[attr-defined]  # imported there, not exported

    assert (pool_module.__name__, owner(str(pool_module.__file__))) == ("urllib3.poolmanager", "urllib3")


def test_niquests_runs_on_urllib3_future_the_lock_names() -> None:
    pool_module = sys.modules[niquests.adapters.PoolManager.__module__]  # type: ignore[attr-defined]  # imported there, not exported
    version = urllib3_future.__version__  # type: ignore[attr-defined]  # left out of urllib3_future's __all__

    assert (pool_module.__name__.split(".")[0], version) == (
        "urllib3_future",
        locked("urllib3-future"),
    )


def test_no_startup_hook_copies_urllib3_future_over_urllib3() -> None:
    hooks = [p.name for d in site.getsitepackages() for p in Path(d).glob("*.pth") if "urllib3" in p.name]

    assert hooks == []
