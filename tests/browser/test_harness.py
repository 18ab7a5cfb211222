"""The browser tests cannot pass on CI by skipping: a missing browser fails there, skips locally."""

from __future__ import annotations

import pytest

from tests.helpers.browser_helpers import unavailable


def test_missing_browser_fails_on_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")

    with pytest.raises(pytest.fail.Exception, match="cannot run on CI: no chromium"):
        unavailable("no chromium")


def test_missing_browser_skips_locally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)

    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        unavailable("no chromium")
