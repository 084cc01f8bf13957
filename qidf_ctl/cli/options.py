"""Options shared by many commands, declared once, each with its environment variable.

``with_cluster`` adds the connection options to a command, like sqlite-utils' shared option
decorators: the command gets one ``conn`` argument and calls ``conn.connect()`` when it is
ready, after checking its own input, so bad input never waits on a network. It also adds
``--profile`` (a named profile of the user's config file, under the options) and the request
log (``--verbose``, ``--trace FILE``), so every cluster command has them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import typer

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.cluster.connection import ENV
from qidf_ctl.cluster.profile_file import load_config
from qidf_ctl.cluster.profiles import ENV_PROFILE, Profile
from qidf_ctl.cluster.requestlog import RequestLog
from qidf_ctl.errors import UsageError
from qidf_ctl.predictors import QueryKind
from qidf_ctl.similarity import QlogParams

F = TypeVar("F", bound=Callable[..., Any])
CONNECTION = "Connection"
REQUEST_LOG = "Request log"
ENV_VERBOSE = "QIDF_VERBOSE"
ENV_TRACE = "QIDF_TRACE"

# --- Connection options ------------------------------------------------------------------
# Every one has its environment variable (ENV, shown in --help); ConnectionSettings checks
# them all before any network call.


def _opt(name: str, flag: str, help_text: str, kind: Any = str | None) -> Any:
    return Annotated[kind, typer.Option(flag, envvar=ENV[name], show_envvar=True,
                                        rich_help_panel=CONNECTION, help=help_text)]


_CONNECTION_OPTIONS: dict[str, Any] = {
    "profile": Annotated[str | None, typer.Option(
        "--profile", envvar=ENV_PROFILE, show_envvar=True, rich_help_panel=CONNECTION,
        help="A cluster profile of your config file (`qidf profiles list`); the options "
        "below and their variables override its keys one by one.")],
    "url": _opt("url", "--url", "Cluster URL (default: the local engine, "
                "http://127.0.0.1:9200)."),
    "cloud_id": _opt("cloud_id", "--cloud-id", "Elastic Cloud ID, instead of --url."),
    "user": _opt("username", "--user", "Basic-auth user."),
    "password": _opt("password", "--password", "Basic-auth password (prefer "
                     "--password-file: options show up in process lists)."),
    "password_file": _opt("password_file", "--password-file",
                          "Read the password from this file (one line)."),
    "api_key": _opt("api_key", "--api-key", "API key: base64 'id:key', or 'id:key' "
                    "(Elasticsearch; prefer --api-key-file)."),
    "api_key_file": _opt("api_key_file", "--api-key-file", "Read the API key from this file."),
    "bearer_token": _opt("bearer_token", "--bearer-token", "Bearer token, e.g. a JWT "
                         "(prefer --bearer-token-file)."),
    "bearer_token_file": _opt("bearer_token_file", "--bearer-token-file",
                              "Read the bearer token from this file."),
    "aws_region": _opt("aws_region", "--aws-region", "Sign requests with AWS SigV4 for this "
                       "region (Amazon OpenSearch Service / Serverless; credentials from the "
                       "AWS environment, profile or instance role; needs qidf\\[aws])."),
    "aws_service": _opt("aws_service", "--aws-service", "SigV4 service: es (a domain, the "
                        "default) or aoss (a Serverless collection)."),
    "ca_certs": _opt("ca_certs", "--ca-certs", "CA certificate bundle (PEM) to trust for "
                     "https, instead of the system's."),
    "client_cert": _opt("client_cert", "--client-cert", "Client certificate (PEM) for mutual "
                        "TLS; its key inside it or in --client-key."),
    "client_key": _opt("client_key", "--client-key", "Private key (PEM, unencrypted) of "
                       "--client-cert."),
    "ssl_assert_fingerprint": _opt("ssl_assert_fingerprint", "--ssl-assert-fingerprint",
                                   "Pin the server certificate's SHA-256 fingerprint (instead "
                                   "of CA verification)."),
    "insecure": _opt("insecure", "--insecure", "Skip TLS certificate verification (test "
                     "clusters only).", bool),
    "proxy": _opt("proxy", "--proxy", "HTTP proxy URL; default: HTTPS_PROXY / HTTP_PROXY "
                  "(except hosts in NO_PROXY); 'none' connects directly."),
    "timeout": _opt("timeout", "--timeout", "Seconds to wait for each answer (default 60).",
                    float | None),
    "retries": _opt("retries", "--retries", "Retries after a connection error or HTTP "
                    "429/502/503/504 (default 3; never after a timeout).", int | None),
    "verbose": Annotated[bool, typer.Option(
        "--verbose", "-v", envvar=ENV_VERBOSE, show_envvar=True, rich_help_panel=REQUEST_LOG,
        help="Print one line per request on stderr: method, path, status, time (never a "
        "credential).")],
    "trace": Annotated[str | None, typer.Option(
        "--trace", envvar=ENV_TRACE, show_envvar=True, rich_help_panel=REQUEST_LOG,
        help="Append every request to this file as a JSON line: method, path, query, "
        "status, ms, bytes (never a header, body or credential).")],
}
_NOT_CONNECTION = ("profile", "verbose", "trace")
_FLAGS = ("insecure", "verbose")


@dataclass
class ClusterOptions:
    """The connection options of one command line; ``connect`` builds the client."""

    url: str | None = None
    cloud_id: str | None = None
    user: str | None = None
    password: str | None = None
    password_file: str | None = None
    api_key: str | None = None
    api_key_file: str | None = None
    bearer_token: str | None = None
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
    profile: str | None = None
    verbose: bool = False
    trace: str | None = None
    request_log: RequestLog | None = field(default=None, repr=False)

    @property
    def names_a_cluster(self) -> bool:
        """Whether the command line says where the cluster is (else: the local engine)."""
        return bool(self.url or self.cloud_id or self.profile)

    def chosen_profile(self) -> Profile | None:
        """The ``--profile`` of the user's config file (read, validated; no secret read)."""
        if self.profile is not None and not self.profile.strip():
            raise UsageError("--profile is empty: give a profile name (`qidf profiles list` "
                             "shows them), or leave the option out")
        return load_config().profile(self.profile) if self.profile else None

    def settings(self) -> ConnectionSettings:
        options = {k: v for k, v in vars(self).items()
                   if k not in (*_NOT_CONNECTION, "request_log")}
        options["username"] = options.pop("user")
        profile = self.chosen_profile()
        settings = (profile.settings(options, environment=True) if profile is not None
                    else ConnectionSettings.from_options(**options))
        settings.request_log = self.request_log
        return settings

    def connect_settings(self, settings: ConnectionSettings) -> Cluster:
        """Connect with ``settings`` (e.g. a qidf.toml profile's), through this command
        line's request log."""
        if settings.request_log is None:
            settings.request_log = self.request_log
        if self.request_log is not None:
            self.request_log.note(f"cluster: {settings.url}")
        return Cluster.connect(settings)

    def connect(self) -> Cluster:
        settings = self.settings()
        if self.request_log is not None:
            via = f" (profile {self.profile!r})" if self.profile else ""
            self.request_log.note(f"cluster: {settings.url}{via}")
        return Cluster.connect(settings)


def _verbose_line(line: str) -> None:
    from qidf_ctl.cli.output import err

    err.print(line, markup=False, highlight=False)


def with_cluster(func: F) -> F:
    """Give ``func`` the connection options; it receives them as ``conn: ClusterOptions``.
    The profile is read and the trace file opened before ``func`` runs: a mistake there is
    refused before any work."""
    signature = inspect.signature(func, eval_str=True)
    own = [p for name, p in signature.parameters.items() if name != "conn"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                               default=False if name in _FLAGS else None, annotation=kind)
             for name, kind in _CONNECTION_OPTIONS.items()]
    keyword_only = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        named = kwargs.get("field", kwargs.get("fields"))
        names = named if isinstance(named, list) else [named]
        if any(isinstance(n, str) and not n.strip() for n in names):  # every --field, once
            raise UsageError("--field is empty: name a text field of the index, or leave the "
                             "option out (an index with one text field needs none)")
        conn = ClusterOptions(**{name: kwargs.pop(name) for name in _CONNECTION_OPTIONS})
        conn.chosen_profile()
        conn.request_log = RequestLog.open(_verbose_line if conn.verbose else None,
                                           conn.trace)
        try:
            return func(*args, conn=conn, **kwargs)
        finally:
            if conn.request_log is not None:
                conn.request_log.close()

    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=keyword_only + added)
    wrapper.__annotations__ = {p.name: p.annotation for p in keyword_only + added}
    return wrapper  # type: ignore[return-value]


# --- Other shared options -----------------------------------------------------------------

Json = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
IndexArg = Annotated[str, typer.Argument(help="Index (or alias to one index).")]
QOpt = Annotated[str, typer.Option(
    "--q", metavar="FLOAT|auto",
    help="q in [0, 2]; 1 is plain BM25; `auto` (apply only) predicts it from the index.")]
# Read as text and checked once, by QlogParams (a number, finite, in range): FLOAT to the eye.
K1 = Annotated[str, typer.Option("--k1", metavar="FLOAT", help="BM25 k1 (>= 0).")]
B = Annotated[str, typer.Option("--b", metavar="FLOAT", help="BM25 b, in [0, 1].")]
Form = Annotated[str, typer.Option(
    "--form", metavar="[lucene|rsj]",
    help="IDF form: 'lucene' (ln_q(1 + odds), default) or 'rsj' (the paper's).")]
ModeOpt = Annotated[str, typer.Option(
    "--mode", metavar="[auto|script|plugin]",
    help="auto (the plugin when every data node has it, else Painless), script or "
    "plugin.")]
QueriesAre = Annotated[QueryKind | None, typer.Option(
    "--queries-are", case_sensitive=False, help="What the index is searched with, when you "
    "know it and have no query sample: `code` (a function's code, a stack trace) or `text`. "
    "A text field searched with code then gets q-log, one searched with text keeps BM25 "
    "without calling it ambiguous. With --queries, the sample decides and a kind it "
    "contradicts is named in the reason. Recorded with the decision.")]


def params_from_options(q: str, k1: str, b: str, form: str) -> QlogParams:
    return QlogParams(q=q, k1=k1, b=b, form=form)  # type: ignore[arg-type]
