"""``qidf plugin build | install``: the native qlog_bm25 similarity plugin."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.engine import Engine, Port, config
from qidf_ctl.cli.options import Json
from qidf_ctl.cli.output import emit_json, out, step_status
from qidf_ctl.engine import plugin, process

plugin_app = typer.Typer(help="Build and install the native qlog_bm25 similarity plugin.",
                         no_args_is_help=True)
app.add_typer(plugin_app, name="plugin")


@plugin_app.command("build")
@one_line_errors
def plugin_build(
    engine: Engine = None,
    skip_tests: Annotated[bool, typer.Option("--skip-tests", help="Skip the Java tests.")] = False,
    json_out: Json = False,
) -> None:
    """Build the plugin zip with Maven (a plugin loads only into its exact engine version).

    Example: qidf plugin build --engine opensearch-2.19.6
    """
    cfg = config(engine, None)
    with step_status(quiet=json_out) as progress:
        progress(f"building the plugin for {cfg.spelling} (Maven)")
        path = plugin.build(cfg, skip_tests=skip_tests)
    if json_out:
        emit_json({"plugin_zip": str(path), "engine": cfg.spelling})
        return
    out.print(str(path), markup=False)


@plugin_app.command("install")
@one_line_errors
def plugin_install(
    zip_path: Annotated[str | None, typer.Argument(
        help="Plugin zip; built for the local engine's version when omitted.")] = None,
    port: Port = None,
    engine: Engine = None,
    json_out: Json = False,
) -> None:
    """Install the plugin on every node of the local engine and restart them; a cluster is
    restarted one node at a time and stays available.

    Example: qidf plugin install --port 9200
    """
    cfg = config(engine, port)
    if engine is None:  # the engine that runs (or last ran) there, not the default
        cfg = process.recorded(cfg)
    with step_status(quiet=json_out) as progress:
        if zip_path is None:
            progress(f"building the plugin for {cfg.spelling}")
            path = plugin.build(cfg, skip_tests=True)
        else:
            path = Path(zip_path)
        info = plugin.install_local(cfg, path, progress)
    if json_out:
        emit_json({**info, "plugin_zip": str(path)})
        return
    where = (f"at {info['url']}" if len(info["nodes"]) == 1 else
             f"on {len(info['nodes'])} nodes, restarted one at a time")
    out.print(f"installed {path.name}; {cfg.flavor.title} {info['version']} running {where}",
              markup=False)
