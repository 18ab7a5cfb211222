"""Addresses as attendees type them (server.mail.address): checked in our words, the domain in
lower case, and taken out of a relay's answer before it is stored."""

from __future__ import annotations

import pytest

from server.mail.address import BadAddress, parse_address, redact


def test_an_address_keeps_its_local_part_and_lowers_its_domain() -> None:
    found = parse_address("  Ada.Lovelace+conf@Mail.Example.NET ")

    assert (found.local, found.domain, str(found)) == (
        "Ada.Lovelace+conf",
        "mail.example.net",
        "Ada.Lovelace+conf@mail.example.net",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "email is empty"),
        ("ada", "email must look like name@example.org"),
        ("ada lovelace@example.org", "the part before @ holds characters an e-mail address cannot have"),
        ("ada@localhost", "the part after @ is not a domain name"),
        ("ada@example.org\r\nBcc: x@y.org", "the part before @ holds characters an e-mail address cannot have"),
        ("a" * 250 + "@example.org", "email is longer than 254 characters"),
    ],
)
def test_what_is_not_an_address_is_refused_without_quoting_it(text: str, message: str) -> None:
    with pytest.raises(BadAddress) as refused:
        parse_address(text)

    assert str(refused.value) == message


def test_redact_takes_out_the_address_and_its_local_part_whatever_their_case() -> None:
    address = parse_address("ada.lovelace@mail.example.net")

    said = redact("550 <ADA.LOVELACE@mail.example.net>: user ada.lovelace unknown", address)

    assert said == "550 <(the address)>: user (the address) unknown"
