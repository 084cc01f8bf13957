"""Named connection profiles: one ``[clusters.NAME]`` table, the same in ``qidf.toml`` and in
the user's config file (``cluster/profile_file.py`` reads both).

A profile says where a cluster is and where its secrets are read from (an environment
variable's name or a file), never the secrets themselves: the files holding profiles are
copied, shared and checked in. Paths are absolute (resolved against the file's folder when
loaded) and secrets are read only when a connection is made, so listing profiles or planning
with another cluster never needs them.

``settings(options)`` layers the command line over the profile field by field. Choosing
another way to authenticate on the command line (``--api-key-file`` over a profile's user
and password) replaces the profile's authentication: mixing the two would only end in
"choose one way to authenticate".
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from qidf_ctl.cluster.connection import ENV, MAX_RETRIES, MAX_TIMEOUT_S, ConnectionSettings
from qidf_ctl.errors import UsageError

ENV_PROFILE = "QIDF_PROFILE"


@dataclass(frozen=True)
class ProfileKey:
    """One key of a ``[clusters.NAME]`` table: its type and what it means (the docs'
    reference of qidf.toml and of the config file are generated from these)."""

    name: str
    kind: str  # string, boolean, number, integer
    help: str
    path: bool = False  # a file: resolved against the folder of the file that names it
    bounds: tuple[float, float] | None = None  # a number's range, as the option's


KEYS: tuple[ProfileKey, ...] = (
    ProfileKey("url", "string", "Cluster URL, e.g. `https://search.example.com:9200`."),
    ProfileKey("url_env", "string", "Read the URL from this environment variable instead."),
    ProfileKey("cloud_id", "string", "Elastic Cloud ID, instead of a URL."),
    ProfileKey("user", "string", "Basic-auth user."),
    ProfileKey("user_env", "string", "Read the user from this environment variable."),
    ProfileKey("password_env", "string", "Read the password from this environment variable "
               "(secrets never go in the file)."),
    ProfileKey("password_file", "string", "Read the password from this file.", path=True),
    ProfileKey("api_key_env", "string", "Read the API key (base64 id:key) from this variable."),
    ProfileKey("api_key_file", "string", "Read the API key from this file.", path=True),
    ProfileKey("bearer_token_env", "string", "Read a bearer token (e.g. a JWT) from this "
               "variable."),
    ProfileKey("bearer_token_file", "string", "Read a bearer token from this file.",
               path=True),
    ProfileKey("aws_region", "string", "Sign requests with AWS SigV4 for this region "
               "(credentials from the AWS environment, profile or instance role)."),
    ProfileKey("aws_service", "string", "SigV4 service: `es` (a domain, the default) or "
               "`aoss` (a Serverless collection)."),
    ProfileKey("ca_certs", "string", "CA certificate bundle (PEM) for https.", path=True),
    ProfileKey("client_cert", "string", "Client certificate (PEM) for mutual TLS.",
               path=True),
    ProfileKey("client_key", "string", "Private key (PEM) of `client_cert`.", path=True),
    ProfileKey("ssl_assert_fingerprint", "string", "Pin the server certificate's SHA-256 "
               "fingerprint."),
    ProfileKey("insecure", "boolean", "Skip TLS certificate verification (test clusters "
               "only)."),
    ProfileKey("proxy", "string", "HTTP proxy URL, or `none` to connect directly (default: "
               "HTTPS_PROXY / HTTP_PROXY, except hosts in NO_PROXY)."),
    ProfileKey("timeout", "number", "Seconds to wait for each answer (default 60).",
               bounds=(0.001, MAX_TIMEOUT_S)),
    ProfileKey("retries", "integer", "Retries after a connection error or HTTP 429/502/503/504 "
               "(default 3).", bounds=(0, MAX_RETRIES)),
)
KEYS_BY_NAME = {k.name: k for k in KEYS}

# Keys that would put a secret into the file: refused, with where to keep it instead.
SECRET_KEYS = {"password": "password_env or password_file",
               "api_key": "api_key_env or api_key_file",
               "bearer_token": "bearer_token_env or bearer_token_file"}

# Each connection option (ConnectionSettings.from_options' keyword) belongs to one field
# that a higher layer replaces whole: --password-file replaces a profile's password_env.
_FIELD = {"url": "address", "cloud_id": "address", "password": "password",
          "password_file": "password", "api_key": "api_key", "api_key_file": "api_key",
          "bearer_token": "bearer_token", "bearer_token_file": "bearer_token"}
# The fields that are a way to authenticate, and which way.
_AUTH = {"username": "basic", "password": "basic", "api_key": "api_key",
         "bearer_token": "bearer_token", "aws_region": "aws", "aws_service": "aws"}


def _field(option: str) -> str:
    return _FIELD.get(option, option)


@dataclass(frozen=True)
class Profile:
    """A ``[clusters.NAME]`` table: where a cluster is and where its secrets are read from."""

    name: str
    url: str | None = None
    url_env: str | None = None
    cloud_id: str | None = None
    user: str | None = None
    user_env: str | None = None
    password_env: str | None = None
    password_file: str | None = None
    api_key_env: str | None = None
    api_key_file: str | None = None
    bearer_token_env: str | None = None
    bearer_token_file: str | None = None
    aws_region: str | None = None
    aws_service: str | None = None
    ca_certs: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    ssl_assert_fingerprint: str | None = None
    insecure: bool = False
    proxy: str | None = None
    timeout: float | None = None
    retries: int | None = None
    source: str = ""  # the file it came from, for messages ("" when built in code)

    def _env(self, variable: str | None, what: str) -> str | None:
        if variable is None:
            return None
        value = os.environ.get(variable)
        if not value:
            raise UsageError(f"cluster profile {self.name!r}{self._where} reads its {what} "
                             f"from the environment variable {variable}, which is not set")
        return value

    @property
    def _where(self) -> str:
        return f" ({self.source})" if self.source else ""

    def _secret(self, secret: str, what: str) -> dict[str, Any]:
        return {secret: self._env(getattr(self, f"{secret}_env"), what),
                f"{secret}_file": getattr(self, f"{secret}_file")}

    def _value(self, option: str) -> dict[str, Any]:
        return {option: getattr(self, option)}

    def _fields(self) -> dict[str, Callable[[], dict[str, Any]]]:
        """The profile's values by field, each read only when asked (secrets included)."""
        fields: dict[str, Callable[[], dict[str, Any]]] = {}
        if self.url or self.url_env or self.cloud_id:
            fields["address"] = lambda: ({"cloud_id": self.cloud_id} if self.cloud_id else
                                         {"url": self.url or self._env(self.url_env, "URL")})
        if self.user or self.user_env:
            fields["username"] = lambda: {"username": self.user
                                          or self._env(self.user_env, "user")}
        for secret, what in (("password", "password"), ("api_key", "API key"),
                             ("bearer_token", "bearer token")):
            if getattr(self, f"{secret}_env") or getattr(self, f"{secret}_file"):
                fields[secret] = functools.partial(self._secret, secret, what)
        for option in ("aws_region", "aws_service", "ca_certs", "client_cert", "client_key",
                       "ssl_assert_fingerprint", "proxy", "timeout", "retries"):
            if getattr(self, option) is not None:
                fields[option] = functools.partial(self._value, option)
        if self.insecure:
            fields["insecure"] = lambda: {"insecure": True}
        return fields

    def settings(self, options: Mapping[str, Any] | None = None, *,
                 environment: bool = False) -> ConnectionSettings:
        """Connection settings: ``options`` (``from_options`` keywords; None or False mean
        not given) over the profile, field by field; with ``environment``, the QIDF_*
        variables too (``ENV``). Secrets are read now."""
        given = {k: v for k, v in (options or {}).items() if v is not None and v is not False}
        fields = {_field(k) for k in given}
        if environment:
            fields |= {_field(k) for k, var in ENV.items() if os.environ.get(var)}
        ways = {_AUTH[f] for f in fields if f in _AUTH}
        mine = self._fields()
        if "address" not in fields and "address" not in mine:
            raise UsageError(f"cluster profile {self.name!r}{self._where} has no url (give "
                             "url, url_env or cloud_id)")
        merged = dict(given)
        for name, read in mine.items():
            if name in fields or (ways and name in _AUTH and _AUTH[name] not in ways):
                continue
            merged.update(read())
        return ConnectionSettings.from_options(**merged)

    def as_dict(self) -> dict[str, Any]:
        """The profile's keys as written (references to secrets, never secrets)."""
        return {k: v for k, v in asdict(self).items()
                if v not in (None, False) and k != "source"}

    def describe(self) -> dict[str, str]:
        """Where the cluster is and how qidf authenticates there, for ``qidf profiles``."""
        where = self.cloud_id and f"Elastic Cloud ID {self.cloud_id.partition(':')[0]}:..."
        where = where or self.url or (self.url_env and f"${self.url_env}") or "(no url)"
        auth = "no credentials" + (" (a client certificate)" if self.client_cert else "")
        user = self.user or (self.user_env and f"${self.user_env}")
        for secret, label in (("password", f"user {user}, password"), ("api_key", "API key"),
                              ("bearer_token", "bearer token")):
            variable, path = getattr(self, f"{secret}_env"), getattr(self, f"{secret}_file")
            if variable or path:
                auth = f"{label} from " + (f"${variable}" if variable else f"file {path}")
                break
        else:
            if self.aws_region:
                auth = f"AWS SigV4 ({self.aws_service or 'es'}, {self.aws_region})"
            elif user:
                auth = f"user {user}, password from --password-file or QIDF_PASSWORD"
        return {"cluster": where, "authentication": auth}
