"""Every derivable form of a registered secret is masked (qidf_ctl/cluster/redact.py), short
ones without garbling qidf's own words; answers are redacted before they are read, and
every console line and JSON object before it is written."""

from __future__ import annotations

import base64
import importlib
import json

import pytest

redact_mod = importlib.import_module("qidf_ctl.cluster.redact")


@pytest.fixture(autouse=True)
def clean():
    redact_mod.forget_all()
    yield
    redact_mod.forget_all()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_a_password_in_every_spelling():
    redact_mod.register_basic("alice", "pä#ss/w@rd")
    for form in ["pä#ss/w@rd", "p%C3%A4%23ss%2Fw%40rd", "p%C3%A4%23ss/w%40rd",
                 "p\\u00e4#ss/w@rd", b64("alice:pä#ss/w@rd"), b64("alice:pä#ss/w@rd").rstrip("="),
                 "alice:pä#ss/w@rd", b64("pä#ss/w@rd")]:
        assert form not in redact_mod.redact(f"server said: {form}."), form
    assert "alice" in redact_mod.redact("user alice refused")  # the user is no secret


def test_an_api_key_given_as_base64_is_masked_decoded_and_in_parts():
    key = b64("VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw")
    redact_mod.register_api_key(key)
    text = ("decoded VuaCfGcBCdbkQm-e5aOx:ui2lp2axTNmsyakw9tvNnw; id VuaCfGcBCdbkQm-e5aOx key "
            f"ui2lp2axTNmsyakw9tvNnw; sent {key}")
    cleaned = redact_mod.redact(text)
    assert "ui2lp2" not in cleaned and "VuaCfG" not in cleaned and key not in cleaned


def test_a_jwts_signature_alone():
    redact_mod.register_token("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXBhcnQ")
    assert "c2lnbmF0dXJlLXBhcnQ" not in redact_mod.redact("bad signature c2lnbmF0dXJlLXBhcnQ")


@pytest.mark.parametrize("password", ["a", "1", "ab", "to"])
def test_a_short_secret_does_not_garble_qidfs_words(password):
    redact_mod.register_basic("u", password)
    message = "error: a qidf bug, exit 1 (see docs/explanation/apply-safety.md to recover)"
    assert redact_mod.redact(message) == message


@pytest.mark.parametrize("text", ["password: Zq", 'password="Zq"', "{'password': 'Zq'}",
                                  "token Zq", "http://u:Zq@h:1", "u:Zq", "Basic Zq",
                                  "authorization=Zq,"])
def test_a_short_secret_where_a_credential_stands(text):
    redact_mod.register_basic("u", "Zq")
    assert "Zq" not in redact_mod.redact(text), redact_mod.redact(text)


def test_a_short_secret_as_a_whole_token_in_what_a_server_wrote():
    redact_mod.register_basic("u", "Zq")
    assert redact_mod.redact_external("refused Zq for Zqx and xZq") == \
        "refused *** for Zqx and xZq"
    assert b64("u:Zq") not in redact_mod.redact(f"header {b64('u:Zq')}")


def test_answers_are_redacted_before_any_part_is_read():
    from qidf_ctl.cluster.failures import from_status

    redact_mod.register_basic("u", "Zq")
    body = {"error": {"root_cause": [{"type": "security_exception",
                                      "reason": "no permissions for [indices:data/read/search] "
                                                "and User [name=u:Zq, backend_roles=[Zq]]"}]}}
    for status in (400, 403, 500):
        message = str(from_status(status, body, "http://h:1", "/idx/_search"))
        assert "Zq" not in message, message
    assert "Zq" not in str(from_status(502, "proxy: password Zq decoded u:Zq", "http://h:1"))


def test_redact_tree_covers_keys_and_nesting():
    redact_mod.register_secret("s3cret-value")
    tree = {"s3cret-value": [{"a": "x s3cret-value y"}, ("s3cret-value", 1)]}
    assert "s3cret" not in json.dumps(redact_mod.redact_tree(tree))


def test_every_console_line_and_json_object(capsys):
    from rich.table import Table

    from qidf_ctl.cli.output import emit_json, err, out

    redact_mod.register_secret("пароль-9")
    out.print("stdout пароль-9", markup=False)
    err.print("stderr пароль-9", markup=False)
    table = Table("field")
    table.add_row("cell пароль-9")
    out.print(table)
    emit_json({"message": "json пароль-9", "пароль-9": 1})
    captured = capsys.readouterr()
    assert "пароль" not in captured.out + captured.err
    assert "\\u043f" not in captured.out  # not in JSON's escaped spelling either


def test_a_url_user_name_is_masked_as_a_whole_name_only():
    """Issue 33: ``--url http://user@host:9200`` said ``--*** '***' was given without a
    password``: the lone userinfo (a user name, or a token put there) is masked where it
    stands alone, never inside ``--user`` or another word."""
    redact_mod.register_name("user")
    assert redact_mod.redact("--user 'user' was given without a password") == \
        "--user '***' was given without a password"
    assert redact_mod.redact_external("super_user user-name user: user") == \
        "super_user user-name ***: ***"


def test_the_url_user_name_message_keeps_the_option(capsys, monkeypatch):
    from .test_cli import run

    code, out, err = run(["show", "idx", "--url", "http://user@127.0.0.1:1"], capsys,
                         monkeypatch)
    assert code == 2 and out == ""
    assert err == ("error: --user '***' was given without a password: add --password-file "
                   "(or QIDF_PASSWORD)\n")
