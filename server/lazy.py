"""Names a package exports but loads only when first asked for (PEP 562): a package whose modules
bring slow imports (SQLAlchemy, Huey) leaves them out of the commands that reach only its light
modules."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A `__getattr__` for `package` that imports each name of `homes` from its module there."""

    def attribute(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(home), name)

    return attribute
