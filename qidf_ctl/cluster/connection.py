"""Where the cluster is and how to authenticate, from options, environment and files.

Secrets live only here and in the client objects: ``repr`` never shows them, and every
message goes through ``redact``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from qidf_ctl.cluster.redact import redact
from qidf_ctl.errors import UsageError

DEFAULT_URL = "http://127.0.0.1:9200"
DEFAULT_TIMEOUT_S = 60.0


def _read_secret(value: str | None, path: str | None, env: str) -> str | None:
    if value:
        return value
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as exc:
            raise UsageError(f"cannot read secret file {path}: {exc.strerror}") from None
    return os.environ.get(env) or None


@dataclass
class ConnectionSettings:
    """Where the cluster is and how to authenticate; secrets are never rendered by repr."""

    url: str = DEFAULT_URL
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    ca_certs: str | None = None
    insecure: bool = False
    timeout: float = DEFAULT_TIMEOUT_S

    @classmethod
    def from_options(
        cls,
        url: str | None = None,
        username: str | None = None,
        password: str | None = None,
        password_file: str | None = None,
        api_key: str | None = None,
        api_key_file: str | None = None,
        ca_certs: str | None = None,
        insecure: bool = False,
    ) -> ConnectionSettings:
        """Options first, then QIDF_* environment variables, then defaults."""
        url = url or os.environ.get("QIDF_URL") or DEFAULT_URL
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 - raises ValueError for a port that is no port
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(
                f"--url must look like http(s)://host:port, got {redact(url)!r} (put a "
                "password with '#', '/' or '@' in --password-file, not in the URL)"
            )
        username = username or os.environ.get("QIDF_USER") or parts.username
        password = _read_secret(password, password_file, "QIDF_PASSWORD") or parts.password
        if parts.username or parts.password:
            netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
            url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        if password and not username:
            raise UsageError("a password was given without a user name: add --user")
        return cls(
            url=url.rstrip("/"),
            username=username,
            password=password,
            api_key=_read_secret(api_key, api_key_file, "QIDF_API_KEY"),
            ca_certs=ca_certs or os.environ.get("QIDF_CA_CERTS") or None,
            insecure=insecure,
        )
