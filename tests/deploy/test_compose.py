"""deploy/compose.yaml against the code: every confcal service's command parses with `confcal`'s own
parser, every CONFCAL_* variable it sets is a setting of that command (the table in docs/configuration.md) with a
value the setting accepts, and the `confcal` service trusts X-Forwarded-For from exactly the nginx
service's fixed address. Docker is not run here (see test_dockerfile.py); the file is read as YAML."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from server.cli import build_parser
from server.commands import settings
from server.config import Setting, resolve

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"
# Compose's ${NAME:?message}, ${NAME:-default} and ${NAME}: what the operator's .env supplies, or
# the default when it does not.
_VARIABLE = re.compile(r"\$\{(\w+)(?::\?[^}]*|:-([^}]*))?\}")
_OPERATOR = {"POSTGRES_PASSWORD": "secret", "CONFCAL_BASE_URL": "https://cal.example.org"}
# A host where the default subnet is taken: the operator moves the network and nginx's address.
_MOVED = {**_OPERATOR, "NETWORK_SUBNET": "10.77.3.0/24", "NGINX_ADDRESS": "10.77.3.2"}
_SETTINGS: dict[str, tuple[Setting, ...]] = {"serve": settings.SERVE, "worker": settings.WORKER}


def _substituted(value: Any, operator: dict[str, str]) -> Any:
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: operator.get(m.group(1), m.group(2)), value)
    if isinstance(value, list):
        return [_substituted(item, operator) for item in value]
    if isinstance(value, dict):
        return {key: _substituted(item, operator) for key, item in value.items()}
    return value


def _document(operator: dict[str, str]) -> dict[str, Any]:
    found: dict[str, Any] = _substituted(yaml.safe_load(COMPOSE.read_text(encoding="utf-8")), operator)
    return found


@pytest.fixture(scope="module")
def services() -> dict[str, Any]:
    found: dict[str, Any] = _document(_OPERATOR)["services"]
    return found


def _confcal_services(services: dict[str, Any]) -> dict[str, Any]:
    return {name: s for name, s in services.items() if s.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}


def test_the_confcal_services_are_the_migration_the_server_and_the_workers(services: dict[str, Any]) -> None:
    commands = {name: s["command"][:2] for name, s in _confcal_services(services).items()}

    assert commands == {
        "migrate": ["confcal", "db"],
        "confcal": ["confcal", "serve"],
        "worker": ["confcal", "worker"],
    }


def test_every_command_and_variable_is_one_the_code_accepts(services: dict[str, Any]) -> None:
    parser = build_parser()
    for name, service in _confcal_services(services).items():
        args = parser.parse_args(service["command"][1:])  # exits (fails the test) on an unknown flag
        environment = {key: str(value) for key, value in service["environment"].items()}
        known = {s.env for s in _SETTINGS.get(args.command, (settings.DB,))}

        assert sorted(set(environment) - known) == [], name
        if args.command in _SETTINGS:
            resolve(args, _SETTINGS[args.command], environment)  # raises ConfigError on a bad value


@pytest.mark.parametrize(("operator", "address"), [(_OPERATOR, "172.28.0.10"), (_MOVED, "10.77.3.2")])
def test_the_server_trusts_forwarded_addresses_from_nginx_alone(operator: dict[str, str], address: str) -> None:
    document = _document(operator)
    server = document["services"]["confcal"]
    environment = {key: str(value) for key, value in server["environment"].items()}
    nginx_address = document["services"]["nginx"]["networks"]["default"]["ipv4_address"]
    (subnet,) = [entry["subnet"] for entry in document["networks"]["default"]["ipam"]["config"]]

    args = resolve(build_parser().parse_args(server["command"][1:]), settings.SERVE, environment)

    assert nginx_address == address
    assert args.trusted_proxy == [nginx_address]
    assert ipaddress.ip_address(nginx_address) in ipaddress.ip_network(subnet)
    assert "networks" not in server  # on the default network, where nginx reaches it


def test_the_workers_link_pushed_events_where_the_servers_feeds_link_them(services: dict[str, Any]) -> None:
    def resolved(name: str) -> Any:
        service = services[name]
        environment = {key: str(value) for key, value in service["environment"].items()}
        args = build_parser().parse_args(service["command"][1:])
        return resolve(args, _SETTINGS[args.command], environment)

    server, worker = resolved("confcal"), resolved("worker")

    assert (worker.base_url, worker.default) == (server.base_url, server.default) == ("https://cal.example.org", None)
