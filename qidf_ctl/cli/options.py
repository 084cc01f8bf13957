"""Options shared by many commands, declared once, each with its environment variable.

``with_cluster`` adds the connection options to a command, like sqlite-utils' shared option
decorators: the command gets one ``conn`` argument and calls ``conn.connect()`` when it is
ready, after checking its own input, so bad input never waits on a network.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import typer

from qidf_ctl.cluster import Cluster, ConnectionSettings
from qidf_ctl.similarity import QlogParams

F = TypeVar("F", bound=Callable[..., Any])
CONNECTION = "Connection"

# --- Connection options ------------------------------------------------------------------

Url = Annotated[str | None, typer.Option(
    "--url", envvar="QIDF_URL", show_envvar=True, rich_help_panel=CONNECTION,
    help="Cluster URL (default: the local engine, http://127.0.0.1:9200).")]
User = Annotated[str | None, typer.Option(
    "--user", envvar="QIDF_USER", show_envvar=True, rich_help_panel=CONNECTION,
    help="Basic-auth user.")]
Password = Annotated[str | None, typer.Option(
    "--password", envvar="QIDF_PASSWORD", show_envvar=True, rich_help_panel=CONNECTION,
    help="Basic-auth password (prefer the variable or --password-file).")]
PasswordFile = Annotated[str | None, typer.Option(
    "--password-file", rich_help_panel=CONNECTION, help="Read the password from this file.")]
ApiKey = Annotated[str | None, typer.Option(
    "--api-key", envvar="QIDF_API_KEY", show_envvar=True, rich_help_panel=CONNECTION,
    help="API key, base64 id:key (prefer the variable or --api-key-file).")]
ApiKeyFile = Annotated[str | None, typer.Option(
    "--api-key-file", rich_help_panel=CONNECTION, help="Read the API key from this file.")]
CaCerts = Annotated[str | None, typer.Option(
    "--ca-certs", envvar="QIDF_CA_CERTS", show_envvar=True, rich_help_panel=CONNECTION,
    help="CA certificate bundle for https.")]
Insecure = Annotated[bool, typer.Option(
    "--insecure", rich_help_panel=CONNECTION,
    help="Skip TLS certificate verification (test clusters only).")]


@dataclass
class ClusterOptions:
    """The connection options of one command line; ``connect`` builds the client."""

    url: str | None = None
    user: str | None = None
    password: str | None = None
    password_file: str | None = None
    api_key: str | None = None
    api_key_file: str | None = None
    ca_certs: str | None = None
    insecure: bool = False

    def settings(self) -> ConnectionSettings:
        return ConnectionSettings.from_options(
            self.url, self.user, self.password, self.password_file, self.api_key,
            self.api_key_file, self.ca_certs, self.insecure)

    def connect(self) -> Cluster:
        return Cluster.connect(self.settings())


_CONNECTION_OPTIONS: dict[str, Any] = {
    "url": Url, "user": User, "password": Password, "password_file": PasswordFile,
    "api_key": ApiKey, "api_key_file": ApiKeyFile, "ca_certs": CaCerts, "insecure": Insecure,
}


def with_cluster(func: F) -> F:
    """Give ``func`` the connection options; it receives them as ``conn: ClusterOptions``."""
    signature = inspect.signature(func, eval_str=True)
    own = [p for name, p in signature.parameters.items() if name != "conn"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                               default=False if name == "insecure" else None, annotation=kind)
             for name, kind in _CONNECTION_OPTIONS.items()]
    keyword_only = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        conn = ClusterOptions(**{name: kwargs.pop(name) for name in _CONNECTION_OPTIONS})
        return func(*args, conn=conn, **kwargs)

    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=keyword_only + added)
    wrapper.__annotations__ = {p.name: p.annotation for p in keyword_only + added}
    return wrapper  # type: ignore[return-value]


# --- Other shared options -----------------------------------------------------------------

Json = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
IndexArg = Annotated[str, typer.Argument(help="Index (or alias to one index).")]
QOpt = Annotated[str, typer.Option(
    "--q", help="q in [0, 2]; 1 is plain BM25; `auto` (apply only) predicts it from the index.")]
K1 = Annotated[str, typer.Option("--k1", help="BM25 k1 (>= 0).")]
B = Annotated[str, typer.Option("--b", help="BM25 b, in [0, 1].")]
Form = Annotated[str, typer.Option(
    "--form", help="IDF form: 'lucene' (ln_q(1 + odds), default) or 'rsj' (the paper's).")]
ModeOpt = Annotated[str, typer.Option(
    "--mode", help="auto (the plugin when every data node has it, else Painless), script or "
    "plugin.")]


def params_from_options(q: str, k1: str, b: str, form: str) -> QlogParams:
    return QlogParams(q=q, k1=k1, b=b, form=form)  # type: ignore[arg-type]
