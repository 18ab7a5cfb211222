"""CI runs the README's test command, and nothing installed beforehand can stand in for it."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from tests.helpers.paths import SYSTEM_TOOLS, with_system_tools

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    """The one command of the README's Quick start that runs the suite."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.partition("\n## Quick start\n")[2].partition("\n## ")[0]
    blocks: list[str] = re.findall(r"```sh\n(.*?)```", quick_start, re.S)
    commands = [line for block in blocks for line in block.splitlines() if "python -m pytest" in line]
    assert len(commands) == 1, commands
    return commands[0]


def test_ci_runs_the_readme_test_command_exactly() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()

    assert ci[-1] == readme_test_command()


def test_ci_runs_in_a_virtual_environment_of_its_own() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()

    made = [i for i, line in enumerate(ci) if re.fullmatch(r'python3 -m venv "\$work/venv"', line)]
    activated = [i for i, line in enumerate(ci) if line == '. "$work/venv/bin/activate"']
    assert made and activated and made[0] < activated[0] < len(ci) - 1
    assert "--system-site-packages" not in "\n".join(ci)


def test_the_test_command_installs_the_lock() -> None:
    # URLLIB3_NO_OVERRIDE=1: urllib3-future, built from source (the lock says so), then leaves the
    # real urllib3 alone (requirements/lock.sh).
    assert readme_test_command().startswith("URLLIB3_NO_OVERRIDE=1 pip install -r requirements/test.txt -e . ")


def test_the_lock_pins_every_package_it_names() -> None:
    lines = (ROOT / "requirements" / "test.txt").read_text(encoding="utf-8").splitlines()
    # Option lines ("--no-binary urllib3-future") name no package to pin.
    requirements = [line for line in lines if line and not line.startswith((" ", "#", "--"))]

    assert [line for line in requirements if "==" not in line] == []
    assert {line.split("==")[0] for line in requirements} >= {"pytest", "icalendar", "starlette", "pytest-xdist"}


def test_the_lock_holds_every_dependency_pyproject_names() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named = [*project["dependencies"], *(r for extra in project["optional-dependencies"].values() for r in extra)]
    wanted = {canonical(re.match(r"[A-Za-z0-9_.\-]+", r).group(0)) for r in named}  # type: ignore[union-attr]
    lock = (ROOT / "requirements" / "test.txt").read_text(encoding="utf-8")
    locked = {canonical(m) for m in re.findall(r"^([A-Za-z0-9_.\-]+)==", lock, re.M)}

    assert wanted - locked == set()


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_system_tools_are_added_after_a_users_path() -> None:
    assert (
        with_system_tools("/home/me/bin:/usr/bin:/bin") == "/home/me/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
    )


def test_system_tools_already_on_the_path_keep_their_place() -> None:
    assert with_system_tools("/usr/sbin:/usr/bin") == "/usr/sbin:/usr/bin:/usr/local/sbin:/sbin"


def test_an_empty_path_gets_the_system_tools_alone() -> None:
    assert with_system_tools("") == "/usr/local/sbin:/usr/sbin:/sbin"


def test_the_tests_processes_run_with_the_system_tools() -> None:
    path = os.environ["PATH"].split(os.pathsep)

    assert [tool for tool in SYSTEM_TOOLS if tool in path] == list(SYSTEM_TOOLS)
