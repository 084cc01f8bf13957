"""The secrets matrix of issue 12: secrets with newlines, ``#``, ``/``, ``@``, ``%`` and
non-latin-1 characters, fed through every option, environment variable and file that takes a
secret; the unit tests run it against loopback stand-ins, the secured integration tests
against the real node. ``leaks`` is the grep: any spelling of a secret in any output."""

from __future__ import annotations

import base64
from pathlib import Path
from urllib.parse import quote, quote_plus

SECRETS = [
    "pa#ss/w@rd%41-x1",
    "пароль-секрет-2",
    "line-one-3\nline-two-3",
    "tab\there-and@at-4",
    "%2F%23-already-encoded-5",
    "quote'\"-and spaces 6",
    "ünïcødé/#@%-7",
    "trailing-newline-8\n",
]


def spellings(secret: str, user: str = "u") -> set[str]:
    """Every form a secret could be printed in (pieces of multi-line ones too)."""
    core = secret.rstrip("\n")
    forms = {core, quote(core, safe=""), quote_plus(core, safe=""), repr(core)[1:-1]}
    forms |= {line for line in core.splitlines() if len(line) >= 4}
    forms.add(base64.b64encode(f"{user}:{core}".encode()).decode())
    forms.add(base64.b64encode(core.encode()).decode())
    return {f for f in forms if len(f) >= 4}


def leaks(secret: str, output: str, user: str = "u") -> list[str]:
    return sorted(f for f in spellings(secret, user) if f in output)


def channels(secret: str, folder: Path, index: int) -> list[tuple[str, list[str], dict[str, str]]]:
    """(name, extra CLI arguments, environment) for each way to give ``secret``."""
    path = folder / f"secret-{index}"
    path.write_text(secret, encoding="utf-8")
    file = str(path)
    url_secret = quote(secret.rstrip("\n"), safe="")
    return [
        ("--password", ["--user", "u", "--password", secret], {}),
        ("QIDF_PASSWORD", ["--user", "u"], {"QIDF_PASSWORD": secret}),
        ("--password-file", ["--user", "u", "--password-file", file], {}),
        ("QIDF_PASSWORD_FILE", ["--user", "u"], {"QIDF_PASSWORD_FILE": file}),
        ("--api-key", ["--api-key", secret], {}),
        ("QIDF_API_KEY", [], {"QIDF_API_KEY": secret}),
        ("--api-key-file", ["--api-key-file", file], {}),
        ("QIDF_API_KEY_FILE", [], {"QIDF_API_KEY_FILE": file}),
        ("--bearer-token", ["--bearer-token", secret], {}),
        ("QIDF_BEARER_TOKEN", [], {"QIDF_BEARER_TOKEN": secret}),
        ("--bearer-token-file", ["--bearer-token-file", file], {}),
        ("QIDF_BEARER_TOKEN_FILE", [], {"QIDF_BEARER_TOKEN_FILE": file}),
        ("URL user:password", ["--url-secret", url_secret], {}),
        ("AWS_SECRET_ACCESS_KEY", ["--aws-region", "eu-west-1"],
         {"AWS_ACCESS_KEY_ID": "AKIAQIDFTESTONLY0000", "AWS_SECRET_ACCESS_KEY": secret,
          "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
          "AWS_EC2_METADATA_DISABLED": "true"}),
        ("HTTPS_PROXY password", ["--proxy-secret", url_secret], {}),
    ]
