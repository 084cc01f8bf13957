"""Options and error handling shared by every ``qidf`` command module."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from .cluster import Cluster, ConnectionSettings, redact
from .console import err
from .errors import QidfError
from .qlog import InvalidParameter
from .similarity import QlogParams

F = TypeVar("F", bound=Callable[..., Any])


def one_line_errors(func: F) -> F:
    """Turn library exceptions into one clear line and an exit code, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except InvalidParameter as exc:
            err.print(f"error: {redact(str(exc))}", markup=False)
            raise typer.Exit(2) from None
        except QidfError as exc:
            err.print(f"error: {redact(str(exc))}", markup=False)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            err.print("error: interrupted", markup=False)
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


# --- Shared options --------------------------------------------------------------------

Url = Annotated[str | None, typer.Option(
    "--url", help="Cluster URL (env QIDF_URL; default the local engine, http://127.0.0.1:9200).")]
User = Annotated[str | None, typer.Option("--user", help="Basic-auth user (env QIDF_USER).")]
Password = Annotated[str | None, typer.Option(
    "--password", help="Basic-auth password (prefer env QIDF_PASSWORD or --password-file).")]
PasswordFile = Annotated[str | None, typer.Option(
    "--password-file", help="Read the password from this file.")]
ApiKey = Annotated[str | None, typer.Option(
    "--api-key", help="API key, base64 id:key (prefer env QIDF_API_KEY or --api-key-file).")]
ApiKeyFile = Annotated[str | None, typer.Option(
    "--api-key-file", help="Read the API key from this file.")]
CaCerts = Annotated[str | None, typer.Option(
    "--ca-certs", help="CA certificate bundle for https (env QIDF_CA_CERTS).")]
Insecure = Annotated[bool, typer.Option(
    "--insecure", help="Skip TLS certificate verification (test clusters only).")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
QOpt = Annotated[str, typer.Option(
    "--q", help="q in [0, 2]; 1 is plain BM25; `auto` (apply only) predicts it from the index.")]
K1 = Annotated[str, typer.Option("--k1", help="BM25 k1 (>= 0).")]
B = Annotated[str, typer.Option("--b", help="BM25 b, in [0, 1].")]
Form = Annotated[str, typer.Option(
    "--form", help="IDF form: 'lucene' (ln_q(1 + odds), default) or 'rsj' (the paper's).")]


def params_from_options(q: str, k1: str, b: str, form: str) -> QlogParams:
    return QlogParams(q=q, k1=k1, b=b, form=form)  # type: ignore[arg-type]


def connect(url: str | None, user: str | None, password: str | None,
             password_file: str | None, api_key: str | None, api_key_file: str | None,
             ca_certs: str | None, insecure: bool) -> Cluster:
    settings = ConnectionSettings.from_options(url, user, password, password_file, api_key,
                                               api_key_file, ca_certs, insecure)
    return Cluster.connect(settings)


