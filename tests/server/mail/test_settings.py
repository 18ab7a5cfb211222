"""The relay's settings from the environment (server.mail.settings): off without them, one line
naming the variable for a value that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.mail.settings import MailSettingsInvalid, mail_settings

FROM = {"CONFCAL_MAIL_FROM": "schedule@conf.example.org"}


def test_without_a_relay_or_a_sender_mail_is_off() -> None:
    assert (mail_settings({}), mail_settings(FROM), mail_settings({"CONFCAL_SMTP_URL": "smtp://h"})) == (
        None,
        None,
        None,
    )


def test_an_smtp_url_means_starttls_on_587_and_smtps_tls_on_465() -> None:
    plain = mail_settings({**FROM, "CONFCAL_SMTP_URL": "smtp://relay@mail.example.org"})
    tls = mail_settings({**FROM, "CONFCAL_SMTP_URL": "smtps://mail.example.org"})

    assert plain is not None and tls is not None
    assert (plain.host, plain.port, plain.tls, plain.username) == ("mail.example.org", 587, "starttls", "relay")
    assert (tls.port, tls.tls, tls.username, tls.password) == (465, "implicit", None, None)


def test_the_password_comes_from_a_file_and_never_prints(tmp_path: Path) -> None:
    secret = tmp_path / "smtp-password"
    secret.write_text("s3cret\n", encoding="utf-8")

    found = mail_settings(
        {**FROM, "CONFCAL_SMTP_URL": "smtp://u@mail.example.org", "CONFCAL_SMTP_PASSWORD_FILE": str(secret)}
    )

    assert found is not None and found.password is not None
    assert found.password.reveal() == "s3cret"
    assert "s3cret" not in repr(found)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"CONFCAL_SMTP_URL": "http://mail.example.org"}, "$CONFCAL_SMTP_URL: must start with smtp:// or smtps://"),
        (
            {"CONFCAL_SMTP_URL": "smtp://u:pw@mail.example.org"},
            "$CONFCAL_SMTP_URL: holds a password; put it in $CONFCAL_SMTP_PASSWORD or $CONFCAL_SMTP_PASSWORD_FILE",
        ),
        (
            {"CONFCAL_SMTP_URL": "smtp://mail.example.org:99999"},
            "$CONFCAL_SMTP_URL: the port is not a number from 1 to 65535",
        ),
        (
            {"CONFCAL_SMTP_URL": "smtp://h.example.org", "CONFCAL_MAIL_FROM": "nobody"},
            "$CONFCAL_MAIL_FROM: email must look like name@example.org",
        ),
        (
            {"CONFCAL_SMTP_URL": "smtp://h.example.org", "CONFCAL_MAIL_PER_DOMAIN": "0"},
            "$CONFCAL_MAIL_PER_DOMAIN: not a positive whole number: '0'",
        ),
        (
            {"CONFCAL_SMTP_URL": "smtp://h.example.org", "CONFCAL_SMTP_PASSWORD_FILE": "/nonexistent/pw"},
            "$CONFCAL_SMTP_PASSWORD_FILE: cannot read /nonexistent/pw: No such file or directory",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(env: dict[str, str], message: str) -> None:
    with pytest.raises(MailSettingsInvalid) as refused:
        mail_settings({**FROM, **env})

    assert str(refused.value) == message
