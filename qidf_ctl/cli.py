"""The ``qidf`` command line: thin typer commands over the library modules.

Every library error becomes one line on stderr and a non-zero exit: 2 for bad input that was
refused before any cluster call, 1 for everything else. Nothing printed here contains a
password or API key (``cluster.redact`` strips credentials from URLs).
"""

from __future__ import annotations

import dataclasses
import json
import signal
import sys
from typing import Annotated, Any

import typer

from . import install, local_engine, plugin
from .cli_options import (
    K1,
    ApiKey,
    ApiKeyFile,
    B,
    CaCerts,
    Form,
    Insecure,
    Json,
    Password,
    PasswordFile,
    QOpt,
    Url,
    User,
    connect,
    one_line_errors,
    params_from_options,
)
from .cluster import Cluster, ConnectionSettings, EngineInfo, redact
from .console import bars, emit_json, err, out, step_status
from .errors import UsageError
from .qlog import IdfForm
from .similarity import Mode, render

app = typer.Typer(
    help="q-logarithmic IDF for BM25 on Elasticsearch and OpenSearch: no reindex, no analyzer "
    "change.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
engine_app = typer.Typer(help="Run a local OpenSearch node (no Docker needed).",
                         no_args_is_help=True)
app.add_typer(engine_app, name="engine")

# --- Similarity commands ----------------------------------------------------------------


def _engine_from_text(text: str) -> EngineInfo:
    name, _, version = text.partition("-")
    name = {"os": "opensearch", "es": "elasticsearch"}.get(name, name)
    if name not in ("opensearch", "elasticsearch"):
        raise UsageError(
            f"--engine must be opensearch-VERSION or elasticsearch-VERSION, got {text!r}")
    version = version or ("2.19.6" if name == "opensearch" else "8.19.4")
    if not version.split(".")[0].isdigit():
        raise UsageError(f"--engine version must start with a number, got {text!r}")
    return EngineInfo(name, version)


@app.command("render")
@one_line_errors
def render_cmd(
    q: QOpt,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    engine: Annotated[str, typer.Option(
        help="Target engine and version; decides the (k1 + 1) factor of the built-in "
        "default (e.g. opensearch-2.19.6, opensearch-3.3.0, elasticsearch-8.19.4).",
    )] = "opensearch-2.19.6",
    mode: Annotated[Mode, typer.Option(help="script (Painless) or plugin (native).")] = Mode.SCRIPT,
) -> None:
    """Print the index settings of the q-log similarity, for review or GitOps.

    Example: qidf render --q 0.3 --engine opensearch-2.19.6 > similarity.json
    """
    params = params_from_options(q, k1, b, form)
    info = _engine_from_text(engine)
    emit_json(render(params, mode, info.default_is_legacy_bm25))


@app.command("apply")
@one_line_errors
def apply_cmd(
    index: Annotated[str, typer.Argument(help="Index (or alias to one index).")],
    q: QOpt,
    k1: K1 = "1.2",
    b: B = "0.75",
    form: Form = IdfForm.LUCENE.value,
    mode: Annotated[str, typer.Option(
        help="auto (the plugin when every data node has it, else Painless), script or "
        "plugin.")] = "auto",
    field: Annotated[str | None, typer.Option(
        help="Text field that must be affected; refused if its mapping names its own "
        "similarity.")] = None,
    dry_run: Annotated[bool, typer.Option(help="Show what would change; change nothing.")] = False,
    json_out: Json = False,
    url: Url = None, user: User = None, password: Password = None,
    password_file: PasswordFile = None, api_key: ApiKey = None, api_key_file: ApiKeyFile = None,
    ca_certs: CaCerts = None, insecure: Insecure = False,
) -> None:
    """Install the q-log similarity on an index (close, update, reopen; under a second).

    `--q auto` predicts q from the index's own statistics (see `qidf predict`) and records
    them next to the previous settings.

    Example: qidf apply code-search --q 0.3
    """
    auto = q.strip().lower() == "auto"
    params = params_from_options("1" if auto else q, k1, b, form)
    if mode not in ("auto", "script", "plugin"):
        raise UsageError(f"--mode must be auto, script or plugin, got {mode!r}")
    cluster = connect(url, user, password, password_file, api_key, api_key_file, ca_certs,
                      insecure)
    chosen, reason = plugin.choose_mode(cluster, mode)
    extra: dict[str, Any] = {}
    if auto:
        from . import predict


        with step_status(quiet=json_out) as progress:
            prediction = predict.predict_for_index(
                cluster, index, field, progress=progress,
                bar=bars(json_out))
        params = params_from_options(str(prediction.q), k1, b, form)
        extra = prediction.record()
        if not json_out:
            err.print(f"q auto: {prediction.reason}", markup=False)
    with step_status(quiet=json_out) as progress:
        result = install.apply(cluster, index, params, mode=chosen, field_name=field,
                               dry_run=dry_run, extra_record=extra, progress=progress)
    result.mode_reason = reason
    if not json_out:
        err.print(f"mode: {reason}", markup=False)
    _report(result, json_out)


@app.command("revert")
@one_line_errors
def revert_cmd(
    index: Annotated[str, typer.Argument(help="Index (or alias to one index).")],
    dry_run: Annotated[bool, typer.Option(help="Show what would change; change nothing.")] = False,
    json_out: Json = False,
    url: Url = None, user: User = None, password: Password = None,
    password_file: PasswordFile = None, api_key: ApiKey = None, api_key_file: ApiKeyFile = None,
    ca_certs: CaCerts = None, insecure: Insecure = False,
) -> None:
    """Restore the similarity settings the index had before qidf's first apply.

    Example: qidf revert code-search
    """
    cluster = connect(url, user, password, password_file, api_key, api_key_file, ca_certs,
                       insecure)
    with step_status(quiet=json_out) as progress:
        result = install.revert(cluster, index, dry_run=dry_run, progress=progress)
    _report(result, json_out)


def _report(result: install.ChangeResult, json_out: bool) -> None:
    if json_out:
        emit_json(result.as_dict())
        return
    for warning in result.warnings:
        err.print(f"warning: {warning}", markup=False)
    out.print(result.message, markup=False)
    if result.changed and result.closed_seconds:
        out.print(f"index was closed for {result.closed_seconds:.2f}s", markup=False)
    if result.dry_run:
        out.print(json.dumps({"settings update": result.settings_body}, indent=2), markup=False)


@app.command("show")
@one_line_errors
def show_cmd(
    index: Annotated[str, typer.Argument(help="Index (or alias to one index).")],
    json_out: Json = False,
    url: Url = None, user: User = None, password: Password = None,
    password_file: PasswordFile = None, api_key: ApiKey = None, api_key_file: ApiKeyFile = None,
    ca_certs: CaCerts = None, insecure: Insecure = False,
) -> None:
    """Print the index's current similarity and how it was installed.

    Example: qidf show code-search --json
    """
    cluster = connect(url, user, password, password_file, api_key, api_key_file, ca_certs,
                       insecure)
    info = install.show(cluster, index)
    if json_out:
        emit_json(info)
        return
    out.print(f"{info['index']} ({info['engine']}, {info['status']}): {info['similarity']}",
              markup=False)
    installed = (info.get("record") or {}).get("installed")
    if installed:
        out.print(f"installed {installed.get('at')} by {installed.get('by')}", markup=False)
    for field_name, sim in info["fields_with_own_similarity"].items():
        out.print(f"field {field_name} uses its own similarity {sim!r}", markup=False)


# --- Native plugin ---------------------------------------------------------------------

plugin_app = typer.Typer(help="Build and install the native qlog_bm25 similarity plugin.",
                         no_args_is_help=True)
app.add_typer(plugin_app, name="plugin")


@plugin_app.command("build")
@one_line_errors
def plugin_build(
    engine_version: Annotated[str, typer.Option(
        help="Exact engine version: 2.19.6, 3.x.y, es-8.x.y or es-9.x.y.")] = "2.19.6",
    skip_tests: Annotated[bool, typer.Option(help="Skip the Java tests.")] = False,
) -> None:
    """Build the plugin zip with Maven (a plugin loads only into its exact engine version).

    Example: qidf plugin build --engine-version 2.19.6
    """
    with step_status() as progress:
        progress(f"building the plugin for {engine_version} (Maven)")
        path = plugin.build(engine_version, skip_tests=skip_tests)
    out.print(str(path), markup=False)


@plugin_app.command("install")
@one_line_errors
def plugin_install(
    zip_path: Annotated[str | None, typer.Argument(
        help="Plugin zip; built for the local engine's version when omitted.")] = None,
    port: Annotated[int | None, typer.Option(help="Local engine port.")] = None,
    distribution: Distribution = None,
    json_out: Json = False,
) -> None:
    """Install the plugin into the local engine and restart it.

    Example: qidf plugin install
    """
    from pathlib import Path

    cfg = local_engine.EngineConfig.from_env(port=port, distribution=distribution)
    with step_status(quiet=json_out) as progress:
        if zip_path is None:
            progress(f"building the plugin for {cfg.flavor.title} {cfg.version}")
            prefix = "es-" if cfg.distribution == "elasticsearch" else ""
            path = plugin.build(prefix + cfg.version, skip_tests=True)
        else:
            path = Path(zip_path)
        info = plugin.install_local(cfg, path, progress)
    if json_out:
        emit_json({**info, "plugin_zip": str(path)})
        return
    out.print(f"installed {path.name}; {cfg.flavor.title} {info['version']} running at "
              f"{info['url']}",
              markup=False)


# --- Local engine -----------------------------------------------------------------------

Port = Annotated[int | None, typer.Option(help="HTTP port (env QIDF_ENGINE_PORT; default 9200).")]
Version = Annotated[str | None, typer.Option(
    "--version", help="Engine version (env QIDF_ENGINE_VERSION; default 2.19.6 for OpenSearch, "
    "8.19.21 for Elasticsearch).")]
Distribution = Annotated[str | None, typer.Option(
    help="opensearch (default; has Painless) or elasticsearch (the integ-test distribution: "
    "no Painless, native plugin only). Env QIDF_ENGINE_DISTRIBUTION.")]


@engine_app.command("start")
@one_line_errors
def engine_start(
    port: Port = None, version: Version = None, distribution: Distribution = None,
    heap: Annotated[str | None, typer.Option(
        help="JVM heap (env QIDF_ENGINE_HEAP; default 1g).")] = None,
    java_home: Annotated[str | None, typer.Option(help="JDK to run it (env QIDF_JAVA_HOME).")]
    = None,
    json_out: Json = False,
) -> None:
    """Download (once), assemble and start a local OpenSearch node on 127.0.0.1.

    Example: qidf engine start --port 9200 --heap 1g
    """
    cfg = local_engine.EngineConfig.from_env(port=port, version=version, heap=heap,
                                             java_home=java_home, distribution=distribution)
    with step_status(quiet=json_out) as progress:
        info = local_engine.start(cfg, progress)
    if json_out:
        emit_json(info)
        return
    verb = "already running" if info["already_running"] else "started"
    out.print(f"{cfg.flavor.title} {info['version']} {verb} at {info['url']} "
              f"(health {info['health']}); data and logs in {info['node_dir']}", markup=False)


@engine_app.command("stop")
@one_line_errors
def engine_stop(port: Port = None, distribution: Distribution = None,
                json_out: Json = False) -> None:
    """Stop the local node started by `qidf engine start` (and nothing else).

    Example: qidf engine stop
    """
    cfg = local_engine.EngineConfig.from_env(port=port, distribution=distribution)
    stopped = local_engine.stop(cfg)
    if json_out:
        emit_json({"stopped": stopped, "url": cfg.url})
        return
    out.print(f"stopped the node at {cfg.url}" if stopped else f"no qidf node runs at {cfg.url}",
              markup=False)


@engine_app.command("status")
@one_line_errors
def engine_status(port: Port = None, distribution: Distribution = None,
                  json_out: Json = False) -> None:
    """Say whether the local node runs, where, and where its data and logs are.

    Example: qidf engine status --json
    """
    cfg = local_engine.EngineConfig.from_env(port=port, distribution=distribution)
    info = local_engine.status(cfg)
    if json_out:
        emit_json(info)
        return
    if info["running"]:
        out.print(f"running: {cfg.flavor.title} {info['version']} at {info['url']} "
                  f"(pid {info['pid']}, "
                  f"health {info['health']}); data and logs in {info['node_dir']}", markup=False)
    else:
        out.print(f"not running (would use {info['url']}; folder {info['node_dir']})",
                  markup=False)
        raise typer.Exit(3)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: usage errors also become one line (no usage box, no traceback)."""
    # A CI job that times out sends SIGTERM: raise KeyboardInterrupt instead of dying, so
    # that install's finally blocks still reopen a closed index.
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        code = app(standalone_mode=False)
    except typer.Exit as exc:
        code = exc.exit_code
    except typer.Abort:
        err.print("error: interrupted", markup=False)
        code = 130
    except Exception as exc:
        # click's (or typer's vendored click's) ClickException and UsageError.
        if not (hasattr(exc, "format_message") and hasattr(exc, "exit_code")):
            raise
        ctx = getattr(exc, "ctx", None)
        hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        err.print(f"error: {redact(exc.format_message())}{hint}", markup=False)
        code = exc.exit_code
    sys.exit(code if isinstance(code, int) else 0)


@app.command("demo")
@one_line_errors
def demo_cmd(
    queries: Annotated[int, typer.Option(help="How many code queries to run.")] = 500,
    port: Port = None,
    url: Annotated[str | None, typer.Option(
        help="Use this cluster instead of starting the local engine (e.g. the "
        "docker-compose one).")] = None,
    json_out: Json = False,
) -> None:
    """Start the local engine, index real Go code, and compare BM25 with q-log.

    Example: qidf demo --queries 500
    """
    from . import demo


    if url is None:
        cfg = local_engine.EngineConfig.from_env(port=port)
        with step_status(quiet=json_out) as progress:
            url = local_engine.start(cfg, progress)["url"]
    cluster = Cluster.connect(ConnectionSettings.from_options(url=url))
    with step_status(quiet=json_out) as progress:
        result = demo.run_demo(cluster, max_queries=queries, progress=progress,
                               bar=bars(json_out))
    if json_out:
        emit_json(dataclasses.asdict(result))
        return
    _print_demo(result, cluster.url)


def _print_demo(result: Any, url: str) -> None:
    from rich.table import Table

    table = Table(title=f"Go standard library, code -> docstring ({result.queries} queries, "
                  f"{result.documents} docstrings, analyzer: standard)")
    for col in ("similarity", "NDCG@10", "MRR@10", "Recall@100"):
        table.add_column(col, justify="right" if col != "similarity" else "left")
    base = result.rows[0].ndcg10
    for row in result.rows:
        delta = f" ({(row.ndcg10 - base) / base:+.0%})" if row.q is not None and base else ""
        table.add_row(row.label, f"{row.ndcg10:.4f}{delta}", f"{row.mrr10:.4f}",
                      f"{row.recall100:.4f}")
    out.print(table)
    ex = result.example
    if ex:
        out.print(f"\nExample: the gold docstring moves from rank {ex['bm25_rank'] or '>100'} "
                  f"(BM25) to rank {ex['qlog_rank']} ({ex['qlog_label']}).", markup=False)
        out.print(f"query (code):\n{ex['code_head']}\n...", markup=False)
        out.print(f"gold docstring: {ex['gold_doc']}", markup=False)
    out.print(f"\nThe index {result.index} on {url} is back on built-in BM25. Next, try "
              f"(scripts/demo.sh installed qidf as .venv/bin/qidf):\n"
              f"  qidf predict {result.index}\n  qidf apply {result.index} --q auto\n"
              f"  qidf show {result.index}\n  qidf revert {result.index}\n  qidf engine stop",
              markup=False)


# Command groups that live in their own modules register themselves on ``app``.
from . import cli_eval, cli_stats  # noqa: E402,F401
