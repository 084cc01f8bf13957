"""``qidf engine fetch | start | stop | status``: the local node, no Docker needed."""

from __future__ import annotations

from typing import Annotated

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import Json
from qidf_ctl.cli.output import emit_json, err, out, step_status
from qidf_ctl.engine import assemble, disk, process
from qidf_ctl.engine.config import (
    DEFAULT_CLUSTER_HEAP,
    DEFAULT_ES_VERSION,
    DEFAULT_HEAP,
    DEFAULT_PORT,
    DEFAULT_VERSION,
    ENV_ENGINE,
    ENV_HEAP,
    ENV_JAVA_HOME,
    ENV_NODES,
    ENV_PORT,
    FLAVORS,
    MAX_NODES,
    EngineConfig,
)
from qidf_ctl.errors import EXIT_DRIFT

engine_app = typer.Typer(help="Run a local OpenSearch (or Elasticsearch) node, or a cluster of "
                         "several, on 127.0.0.1; no Docker needed.", no_args_is_help=True)
app.add_typer(engine_app, name="engine")

Port = Annotated[int | None, typer.Option(
    "--port", envvar=ENV_PORT, show_envvar=True,
    help=f"HTTP port (default {DEFAULT_PORT}); a cluster's first node's port.")]
Engine = Annotated[str | None, typer.Option(
    "--engine", metavar="ENGINE", envvar=ENV_ENGINE, show_envvar=True,
    help=f"Engine and version: opensearch-VERSION (default opensearch-{DEFAULT_VERSION}, with "
    f"Painless) or elasticsearch-VERSION (elasticsearch = {DEFAULT_ES_VERSION}; its Maven "
    "Central distribution has no Painless: native plugin only).")]


def config(engine: str | None, port: int | None, **more: object) -> EngineConfig:
    return EngineConfig.from_env(engine, port=port, **more)


@engine_app.command("fetch")
@one_line_errors
def engine_fetch(engine: Engine = None, json_out: Json = False) -> None:
    """Download (once, through Maven) and assemble the engine without starting it.

    Example: qidf engine fetch --engine opensearch-2.19.6 --json
    """
    cfg = config(engine, None)
    with step_status(quiet=json_out) as progress:
        dist = assemble(cfg, progress)
    if json_out:
        emit_json({"dist": str(dist), "engine": cfg.spelling, "version": cfg.version,
                   "distribution": cfg.distribution})
        return
    out.print(str(dist), markup=False)


@engine_app.command("start")
@one_line_errors
def engine_start(
    port: Port = None,
    engine: Engine = None,
    nodes: Annotated[int | None, typer.Option(
        envvar=ENV_NODES, show_envvar=True, min=1, max=MAX_NODES,
        help="Nodes in the cluster, on consecutive ports from --port (default 1: a single "
        "node).")] = None,
    heap: Annotated[str | None, typer.Option(
        metavar="SIZE", envvar=ENV_HEAP, show_envvar=True,
        help=f"JVM heap per node (default {DEFAULT_HEAP}; {DEFAULT_CLUSTER_HEAP} with "
        "--nodes 2 or more).")] = None,
    java_home: Annotated[str | None, typer.Option(
        metavar="DIR", envvar=ENV_JAVA_HOME, show_envvar=True,
        help="JDK to run it (found when not given).")]
    = None,
    security: Annotated[bool, typer.Option(
        "--security", help="Run it with the security plugin: TLS from a private CA, users "
        "admin and qidf (the documented least-privilege roles); opensearch-2.19.1 (the "
        "default with --security). "
        "Prints where the CA and password files are.")] = False,
    json_out: Json = False,
) -> None:
    """Download (once), assemble and start a local node, or a cluster of --nodes, on
    127.0.0.1.

    Example: qidf engine start --port 9200 --nodes 3
    """
    if security and engine is None:  # the one version with a pinned security plugin
        from qidf_ctl.engine.security import SECURITY_VERSION
        engine = f"opensearch-{SECURITY_VERSION}"
    cfg = config(engine, port, heap=heap, java_home=java_home, nodes=nodes)
    if security:
        _start_secured(cfg, json_out)
        return
    with step_status(quiet=json_out) as progress:
        info = process.start(cfg, progress)
    info["disk_warning"] = disk.local_warning(cfg, len(info["nodes"]))
    if json_out:
        emit_json(info)
        return
    verb = "already running" if info["already_running"] else "started"
    if info["disk_warning"]:
        err.print(f"warning: {info['disk_warning']}", markup=False)
    if len(info["nodes"]) == 1:
        out.print(f"{cfg.flavor.title} {info['version']} {verb} at {info['url']} "
                  f"(health {info['health']}); data and logs in {info['node_dir']}",
                  markup=False)
        return
    out.print(f"{cfg.flavor.title} {info['version']} cluster of {len(info['nodes'])} nodes "
              f"{verb} (health {info['health']}):", markup=False)
    _print_nodes(info)


def _print_nodes(info: dict) -> None:
    for node in info["nodes"]:
        state = f"pid {node['pid']}" if node["running"] else "not running"
        out.print(f"  {node['url']}  {state}; data and logs in {node['node_dir']}",
                  markup=False)


def _start_secured(cfg: EngineConfig, json_out: bool) -> None:
    """The one hook of --security into starting: engine/security.py secures the node."""
    from qidf_ctl.engine import security

    security.check_version(cfg)
    with step_status(quiet=json_out) as progress:
        info, access = security.start(cfg, progress=progress)
    connect = {"url": access.url, "ca_certs": access.ca_certs,
               "password_files": access.password_files}
    info["disk_warning"] = disk.local_warning(cfg, len(info.get("nodes") or [None]))
    if json_out:
        emit_json({**info, **connect, "url": access.url})
        return
    if info["disk_warning"]:
        err.print(f"warning: {info['disk_warning']}", markup=False)
    verb = "already running" if info["already_running"] else "started"
    out.print(f"{cfg.flavor.title} {info['version']} with security {verb} at {access.url}; "
              f"connect with: --url {access.url} --ca-certs {access.ca_certs} --user qidf "
              f"--password-file {access.password_files['qidf']} (admin: "
              f"{access.password_files['admin']})", markup=False)


@engine_app.command("stop")
@one_line_errors
def engine_stop(port: Port = None, engine: Engine = None, json_out: Json = False) -> None:
    """Stop the local node, or every node of the local cluster, started by `qidf engine
    start` (and nothing else).

    Example: qidf engine stop --port 9200
    """
    cfg = config(engine, port)
    ports = process.members(cfg)
    stopped = process.stop(cfg)
    if json_out:
        emit_json({"stopped": stopped, "url": cfg.url,
                   "urls": [cfg.for_port(p).url for p in ports]})
        return
    what = (f"the node at {cfg.url}" if len(ports) == 1 else
            f"the {len(ports)} nodes on ports {ports[0]}-{ports[-1]}")
    out.print(f"stopped {what}" if stopped else f"no qidf node runs at {cfg.url}",
              markup=False)


@engine_app.command("status")
@one_line_errors
def engine_status(port: Port = None, engine: Engine = None, json_out: Json = False) -> None:
    """Say whether the local node (or each node of the local cluster) runs, where, and where
    its data and logs are (exit 3 when it, or any node, does not run).

    Example: qidf engine status --json
    """
    cfg = config(engine, port)
    info = process.status(cfg)
    if json_out:
        emit_json(info)
    elif len(info["nodes"]) > 1:
        out.print(f"{info['running_nodes']} of {len(info['nodes'])} nodes running: "
                  f"{info['engine']} cluster {info['cluster_name'] or ''} (health "
                  f"{info['health']})", markup=False)
        _print_nodes(info)
    elif info["running"]:
        title = FLAVORS[info["engine"].split("-")[0]].title
        out.print(f"running: {title} {info['version']} at {info['url']} "
                  f"(pid {info['pid']}, "
                  f"health {info['health']}); data and logs in {info['node_dir']}", markup=False)
    else:
        out.print(f"not running (would use {info['url']}; folder {info['node_dir']})",
                  markup=False)
    if not info["running"]:
        raise typer.Exit(EXIT_DRIFT)
