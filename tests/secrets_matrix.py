"""The secrets matrix of issues 12, 25 and 28: secrets with newlines, ``#``, ``/``, ``@``,
``%``, non-latin-1 characters, an ``id:key`` pair and secrets of one to three characters, fed
through every option, environment variable and file that takes a secret, and through every
reference a profile of the user's config file can make to one; the unit tests run it against
loopback stand-ins (servers that echo the credentials they decoded among them), the secured
integration tests against the real node, each run with ``--verbose`` and ``--trace``.
``leaks`` is the grep: any spelling of a secret in any output, the trace file included, raw,
encoded or decoded; a short one as a whole token."""

from __future__ import annotations

import base64
import re
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
    "kid9:Zq-key-9",  # an API key's id:key pair
    "Zq",  # short secrets: whole tokens only (none is a word qidf's messages use)
    "é9",
    "%",
    "kZ:Q7",
]
SHORT = 4


def spellings(secret: str, user: str = "u") -> set[str]:
    """Every form a secret could be printed in (pieces of multi-line ones and of ``id:key``
    pairs too, decoded and encoded)."""
    core = secret.rstrip("\n")
    forms = {core, quote(core, safe=""), quote_plus(core, safe=""), repr(core)[1:-1]}
    forms |= {line for line in core.splitlines() if line.strip()}
    for text in (f"{user}:{core}", core):
        forms.add(text)
        forms.add(base64.b64encode(text.encode()).decode())
        forms.add(base64.b64encode(text.encode()).decode().rstrip("="))
    if ":" in core:
        forms |= set(core.split(":", 1))
    return {f for f in forms if f.strip()}


def leaks(secret: str, output: str, user: str = "u") -> list[str]:
    found = []
    for form in spellings(secret, user):
        if len(form) >= SHORT:
            hit = form in output
        else:
            hit = re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", output)
        if hit:
            found.append(form)
    return sorted(found)


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


def report(name: str, runs: int, leaked: int, secrets: int = len(SECRETS)) -> None:
    """Counts for benchmarks/secrets/matrix.json (``QIDF_SECRETS_REPORT``)."""
    import json
    import os

    path = os.environ.get("QIDF_SECRETS_REPORT")
    if not path:
        return
    found = json.loads(Path(path).read_text()) if Path(path).exists() else {}
    found[name] = {"runs": runs, "secrets": secrets, "leaks": leaked}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
