"""A package's names loaded on first use (server/lazy.py)."""

from __future__ import annotations

import json

import pytest

from server.lazy import exports


def test_a_name_is_taken_from_its_module_when_first_asked_for() -> None:
    attribute = exports("package", {"dumps": "json"})

    assert attribute("dumps") is json.dumps


def test_a_name_the_package_does_not_export_is_an_attribute_error() -> None:
    attribute = exports("package", {"dumps": "json"})

    with pytest.raises(AttributeError, match="module 'package' has no attribute 'loads'"):
        attribute("loads")
