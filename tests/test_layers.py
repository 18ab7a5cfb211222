"""No module imports from a layer above its own.

The layers, lowest first (README, "Module map"). A module may import from its own layer and
from any layer below; `server.site` and `server.web` share a rank but are two layers, so neither
imports the other. Every import counts: at module level, inside functions (the lazy ones) and
under TYPE_CHECKING, since each is a dependency a reader of the lower layer would not expect.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (layer, rank, the modules it holds: a package or a module, by dotted prefix)
LAYERS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("feeds", 0, ("feeds",)),
    (
        "server core",
        1,
        (
            "server.errors",
            "server.logs",
            "server.config",
            "server.crypto",
            "server.metrics",
            "server.collector",
            "server.lazy",
        ),
    ),
    ("server.store", 2, ("server.store",)),
    ("server.links", 3, ("server.links",)),
    ("server.mail", 4, ("server.mail",)),
    ("server.caldav", 5, ("server.caldav",)),
    ("server.jobs", 6, ("server.jobs",)),
    ("server.snapshot", 7, ("server.snapshot",)),
    ("server.pages", 8, ("server.pages",)),
    ("server.site", 9, ("server.site",)),
    ("server.web", 9, ("server.web",)),
    ("server.commands", 10, ("server.commands",)),
    ("server.cli", 11, ("server.cli",)),
)


def layer_of(module: str) -> tuple[str, int] | None:
    """The layer holding `module`, None for what is not ours (or the bare `server` package)."""
    for name, rank, prefixes in LAYERS:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return name, rank
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, this: str) -> list[tuple[int, str]]:
    """Every module `path` imports (line, dotted name), wherever the import statement stands.
    `from package import name` counts as `package.name`, so a submodule imported that way is
    judged by its own layer."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
    return found


def upward_imports(modules: list[tuple[Path, str]]) -> list[str]:
    """Each import of a module above (or beside, for the sibling layers) the importer's layer;
    `modules` are (file, dotted name) pairs."""
    wrong = []
    for path, module in modules:
        this = layer_of(module)
        if this is None:
            continue
        for line, name in imported(path, module):
            target = layer_of(name)
            if target is None or target[0] == this[0]:
                continue
            if target[1] >= this[1]:
                wrong.append(f"{module}:{line}: {this[0]} imports {name} ({target[0]})")
    return wrong


def sources() -> list[Path]:
    return sorted(p for package in ("feeds", "server") for p in (ROOT / package).rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    # Arrange
    unplaced = [module_name(p) for p in sources() if layer_of(module_name(p)) is None]

    # Act / Assert: only the `server` package itself stands outside the layers
    assert unplaced == ["server"]


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    # Arrange
    modules = [(path, module_name(path)) for path in sources()]

    # Act
    wrong = upward_imports(modules)

    # Assert
    assert wrong == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from server.web.app import create_app\n", ["server.pages imports server.web.app.create_app (server.web)"]),
        (
            "def f():\n    import server.site.site_build\n",
            ["server.pages imports server.site.site_build (server.site)"],
        ),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from server.commands import build\n",
            ["server.pages imports server.commands.build (server.commands)"],
        ),
        ("from server.snapshot.published import Published\nfrom feeds import urls\n", []),
    ],
)
def test_an_upward_import_is_found_wherever_it_stands(tmp_path: Path, source: str, expected: list[str]) -> None:
    # Arrange: a module of server.pages
    path = tmp_path / "probe.py"
    path.write_text(source, encoding="utf-8")

    # Act
    wrong = upward_imports([(path, "server.pages.probe")])

    # Assert
    assert [w.split(": ", 1)[1] for w in wrong] == expected
