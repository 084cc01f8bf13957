"""The secrets matrix of issue 12: secrets with newlines, ``#``, ``/``, ``@``, ``%`` and
non-latin-1 characters, fed through every option, environment variable and file that takes a
secret, and (issue 25) through every reference a profile of the user's config file can make
to one; the unit tests run it against loopback stand-ins, the secured integration tests
against the real node, each run with ``--verbose`` and ``--trace``. ``leaks`` is the grep:
any spelling of a secret in any output, the trace file included."""

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


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") \
        .replace("\t", "\\t") + '"'


def profile_channels(secret: str, folder: Path, index: int, user: str = "u"
                     ) -> list[tuple[str, list[str], dict[str, str]]]:
    """(name, extra CLI arguments, environment) for each way a profile names ``secret``: a
    variable, a file, and (refused, never echoed) written inline in the config file."""
    path = folder / f"profile-secret-{index}"
    path.write_text(secret, encoding="utf-8")
    found = []
    for kind, table in (
            ("password_env", f'user = "{user}"\npassword_env = "QIDF_MATRIX_SECRET"'),
            ("password_file", f'user = "{user}"\npassword_file = "{path.name}"'),
            ("api_key_env", 'api_key_env = "QIDF_MATRIX_SECRET"'),
            ("api_key_file", f'api_key_file = "{path.name}"'),
            ("bearer_token_env", 'bearer_token_env = "QIDF_MATRIX_SECRET"'),
            ("bearer_token_file", f'bearer_token_file = "{path.name}"'),
            ("inline password (refused)",
             f'user = "{user}"\npassword = {_toml_string(secret)}')):
        config = folder / f"config-{index}-{kind.split()[0]}.toml"
        config.write_text(f'[clusters.p]\nurl = "http://127.0.0.1:1"\n{table}\n',
                          encoding="utf-8")
        found.append((f"profile {kind}", ["--profile", "p"],
                      {"QIDF_CONFIG": str(config), "QIDF_MATRIX_SECRET": secret}))
    return found
