"""Settings from flags, the environment and a TOML file (server.config), and the table in docs/configuration.md."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from server.commands import settings
from server.config import ConfigError, Setting, add_options, markdown_table, resolve

CONFIGURATION_DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_options(parser, settings.SERVE)
    return parser.parse_args(argv)


def test_a_flag_beats_the_environment_which_beats_the_file(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text('port = 9000\nhost = "0.0.0.0"\nworkers = 3\nallowed_host = ["a.example"]\n', encoding="utf-8")
    env = {"CONFCAL_CONFIG": str(config), "CONFCAL_PORT": "9100", "CONFCAL_WORKERS": "4"}

    args = resolve(_parse("--workers", "5"), settings.SERVE, env)

    assert (args.workers, args.port, args.host, args.allowed_host) == (5, 9100, "0.0.0.0", ["a.example"])
    assert (args.max_age, args.jobs, args.demo, args.log_format) == (300, True, None, "text")


def test_booleans_and_lists_from_the_environment() -> None:
    env = {"CONFCAL_JOBS": "false", "CONFCAL_DEMO": "yes", "CONFCAL_TRUSTED_PROXIES": "10.0.0.1, 10.1.0.0/16"}

    args = resolve(_parse(), settings.SERVE, env)

    assert (args.jobs, args.demo, args.trusted_proxy) == (False, True, ["10.0.0.1", "10.1.0.0/16"])


def test_a_no_flag_beats_the_environment() -> None:
    args = resolve(_parse("--no-jobs"), settings.SERVE, {"CONFCAL_JOBS": "true"})

    assert args.jobs is False


@pytest.mark.parametrize("command", [settings.SERVE, settings.WORKER])
def test_the_sync_jobs_take_the_base_url_and_default_of_serve_and_worker(
    command: tuple[Setting, ...],
) -> None:
    parser = argparse.ArgumentParser()
    add_options(parser, command)
    env = {"CONFCAL_BASE_URL": "https://cal.example.org/", "CONFCAL_DEFAULT": "fosdem-2026"}

    synced = settings.sync_settings(resolve(parser.parse_args([]), command, env))

    assert (synced.base_url, synced.default) == ("https://cal.example.org", "fosdem-2026")


@pytest.mark.parametrize(
    ("env", "toml", "message"),
    [
        ({"CONFCAL_PORT": "70000"}, "", "$CONFCAL_PORT: not a TCP port: '70000'"),
        ({"CONFCAL_JOBS": "perhaps"}, "", "$CONFCAL_JOBS: not a boolean (true/false): 'perhaps'"),
        ({}, "prot = 8080\n", "{config}: unknown setting 'prot'"),
        ({}, "jobs = 1\n", "{config}: jobs: expected true or false"),
        ({}, 'log_format = "xml"\n', "{config}: log_format: not one of text, json: 'xml'"),
        ({}, "port = [", "{config}: not valid TOML: "),
    ],
)
def test_a_bad_value_is_one_line_naming_where_it_came_from(
    tmp_path: Path, env: dict[str, str], toml: str, message: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(toml, encoding="utf-8")

    with pytest.raises(ConfigError) as raised:
        resolve(_parse(), settings.SERVE, {**env, "CONFCAL_CONFIG": str(config)})

    assert str(raised.value).startswith(message.format(config=config))
    assert "\n" not in str(raised.value)


def test_the_configuration_doc_lists_every_setting() -> None:
    assert markdown_table(settings.ALL) in CONFIGURATION_DOC.read_text(encoding="utf-8")
