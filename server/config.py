"""Settings of the long-running commands (`confcal serve`, `confcal worker`) from the command line,
the environment or a TOML file, in that order of precedence, then the built-in default.

Every setting is one `Setting` row in `SETTINGS`: its TOML key (the option's name with
underscores), its environment variable and its flag. The configuration table (docs/configuration.md) lists the
same rows; a test keeps the two in step. Values from the environment and the file are checked by
the same functions as the flags, so a bad `CONFCAL_PORT` is the same one-line error as a bad
`--port`, naming where it came from.

The TOML file (`--config FILE` or `CONFCAL_CONFIG`) holds top-level keys, e.g.

    db = "postgresql+psycopg://confcal@/confcal"
    workers = 4
    allowed_host = ["cal.example.org"]
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.errors import ServerError

CONFIG_ENV = "CONFCAL_CONFIG"


class ConfigError(ServerError):
    """A setting from the environment or the configuration file is not valid."""


@dataclass(frozen=True)
class Setting:
    key: str  # argparse dest and TOML key
    env: str
    flag: str
    default: Any
    # The flag's own argparse type (checks and converts one string); for lists, one item.
    parse: Callable[[str], Any] = str
    kind: str = "value"  # "value", "list" (repeatable flag; comma-separated env) or "bool"
    help: str = ""
    metavar: str | None = None
    shown_default: str | None = None  # for help and docs/configuration.md when `default` says too little
    no_flag: str | None = None  # "bool" settings: the flag that turns it off (--no-jobs)

    def default_text(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        if self.kind == "bool":
            return "on" if self.default else "off"
        return "none" if self.default in (None, []) else str(self.default)


def _flag_bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"not a boolean (true/false): {value!r}")


def resolve(
    args: argparse.Namespace,
    settings: Sequence[Setting],
    environ: Mapping[str, str] | None = None,
) -> argparse.Namespace:
    """Fill every setting `args` left at None (flag not given) from the environment, then the
    TOML file (`args.config`, else $CONFCAL_CONFIG), then its default. Returns a new namespace."""
    env = os.environ if environ is None else environ
    config = getattr(args, "config", None) or env.get(CONFIG_ENV) or None
    table = _read_toml(Path(config)) if config else {}
    known = {s.key for s in settings}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{config}: unknown setting {unknown[0]!r}")
    resolved = argparse.Namespace(**vars(args))
    for setting in settings:
        if getattr(args, setting.key, None) not in (None, []):
            continue
        if setting.env in env and env[setting.env] != "":
            value = _from_text(setting, env[setting.env], f"${setting.env}")
        elif setting.key in table:
            value = _from_toml(setting, table[setting.key], f"{config}: {setting.key}")
        else:
            value = setting.default
        setattr(resolved, setting.key, value)
    return resolved


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    except OSError as exc:
        raise ConfigError(f"cannot read configuration file {path}: {exc.strerror}") from exc


def _from_text(setting: Setting, text: str, where: str) -> Any:
    if setting.kind == "list":
        return [_checked(setting.parse, item.strip(), where) for item in text.split(",") if item.strip()]
    if setting.kind == "bool":
        return _checked(_flag_bool, text, where)
    return _checked(setting.parse, text, where)


def _from_toml(setting: Setting, value: object, where: str) -> Any:
    if setting.kind == "list":
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list")
        return [_checked(setting.parse, str(item), where) for item in value]
    if setting.kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false")
        return value
    if isinstance(value, (list, dict, bool)):
        raise ConfigError(f"{where}: expected a single value")
    return _checked(setting.parse, str(value), where)


def _checked(parse: Callable[[str], Any], text: str, where: str) -> Any:
    try:
        return parse(text)
    except (argparse.ArgumentTypeError, ValueError) as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def add_options(parser: argparse.ArgumentParser, settings: Sequence[Setting]) -> None:
    """One flag per setting, each defaulting to None so `resolve` can tell "not given"."""
    add_config_option(parser)
    for s in settings:
        help_text = f"{s.help} (default: {s.default_text()}; ${s.env})"
        if s.kind == "bool":
            parser.add_argument(s.flag, dest=s.key, action="store_const", const=True, default=None, help=help_text)
            if s.no_flag:
                parser.add_argument(s.no_flag, dest=s.key, action="store_const", const=False, help="turn it off")
        elif s.kind == "list":
            parser.add_argument(
                s.flag, dest=s.key, action="append", type=s.parse, default=None, metavar=s.metavar, help=help_text
            )
        else:
            parser.add_argument(s.flag, dest=s.key, type=s.parse, default=None, metavar=s.metavar, help=help_text)


def markdown_table(settings: Sequence[Setting]) -> str:
    """The table of these settings in docs/configuration.md."""
    lines = ["| TOML key | environment | flag | default | what |", "|---|---|---|---|---|"]
    for s in settings:
        flag = f"`{s.flag}`" + (f" / `{s.no_flag}`" if s.no_flag else "")
        lines.append(f"| `{s.key}` | `{s.env}` | {flag} | {s.default_text()} | {s.help} |")
    return "\n".join(lines) + "\n"


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help=f"TOML file of settings (default: ${CONFIG_ENV}); flags and environment variables override it",
    )
