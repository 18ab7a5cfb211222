"""deploy/Dockerfile read as its instructions, for running its steps without Docker
(test_dockerfile.py): stages, each instruction with its continuation lines joined, the exec and
KEY=VALUE forms, and the image's absolute paths mapped to folders on this machine."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: RUN, COPY, ...
    args: str  # the rest, continuation lines joined with single spaces


@dataclass(frozen=True)
class Stage:
    image: str
    name: str | None
    instructions: tuple[Instruction, ...]

    def all(self, keyword: str) -> list[str]:
        return [i.args for i in self.instructions if i.keyword == keyword]

    def one(self, keyword: str) -> str:
        (args,) = self.all(keyword)
        return args


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].strip() + " "
            continue
        lines.append(pending + stripped)
        pending = ""
    if pending:
        lines.append(pending.strip())
    return lines


def parse(text: str) -> list[Stage]:
    stages: list[Stage] = []
    image, name = "", None
    body: list[Instruction] = []
    for line in _logical_lines(text):
        keyword, _, args = line.partition(" ")
        keyword, args = keyword.upper(), args.strip()
        if keyword == "FROM":
            if image:
                stages.append(Stage(image, name, tuple(body)))
            words = args.split()
            image, name, body = words[0], (words[2] if len(words) == 3 and words[1].upper() == "AS" else None), []
            continue
        body.append(Instruction(keyword, args))
    if image:
        stages.append(Stage(image, name, tuple(body)))
    return stages


def exec_form(args: str) -> list[str]:
    """CMD ["a", "b"] -> ["a", "b"]."""
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value), args
    return value


def env_pairs(args: str) -> dict[str, str]:
    """ENV A=1 B="two words" -> {"A": "1", "B": "two words"}."""
    pairs = {}
    for word in shlex.split(args):
        key, sep, value = word.partition("=")
        assert sep, f"ENV without '=': {args}"
        pairs[key] = value
    return pairs


def healthcheck(args: str) -> tuple[dict[str, str], str]:
    """HEALTHCHECK --interval=30s ... CMD command -> ({"interval": "30s", ...}, "command")."""
    options, _, command = args.partition(" CMD ")
    found = {}
    for option in options.split():
        key, _, value = option.removeprefix("--").partition("=")
        found[key] = value
    return found, command.strip()


class PathMap:
    """The image's absolute paths (/usr/local, /install, ...) as folders here."""

    def __init__(self, mapping: Mapping[str, Path]) -> None:
        self.mapping = dict(mapping)
        names = "|".join(re.escape(p) for p in sorted(mapping, key=len, reverse=True))
        # A mapped path only where it starts a path: not inside another one, and whole.
        self._pattern = re.compile(rf"(?<![\w/.])({names})(?=[/\s'\":]|$)")

    def __call__(self, text: str) -> str:
        return self._pattern.sub(lambda m: str(self.mapping[m.group(1)]), text)

    def path(self, image_path: str) -> Path:
        return Path(self(image_path))
