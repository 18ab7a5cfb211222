"""Validators for the export tests: the c3voc XSD and JSON Schema from ../shared/data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
import xmlschema


@pytest.fixture(scope="session")
def frab_xsd(shared_data: Path) -> Callable[[bytes], list[str]]:
    schema = xmlschema.XMLSchema(str(shared_data / "c3voc_schedule.xml.xsd"))

    def errors(body: bytes) -> list[str]:
        return [str(e.reason) + f" at {e.path}" for e in schema.iter_errors(body.decode("utf-8"))]

    return errors


@pytest.fixture(scope="session")
def c3voc_schema(shared_data: Path) -> Callable[[bytes], list[str]]:
    schema = json.loads((shared_data / "c3voc_schedule_schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft6Validator(schema, format_checker=jsonschema.FormatChecker())

    def errors(body: bytes) -> list[str]:
        return [f"{e.message} at {e.json_path}" for e in validator.iter_errors(json.loads(body))]

    return errors
