"""``qidf profiles list | show``: the cluster profiles of the user's config file, and where
that file is. Reads no secret it does not need and never prints one; connects to nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from qidf_ctl.cli.app import app
from qidf_ctl.cli.boundary import one_line_errors
from qidf_ctl.cli.options import Json
from qidf_ctl.cli.output import emit_json, err, out
from qidf_ctl.cluster.connection import ENV
from qidf_ctl.cluster.profile_file import ENV_CONFIG, UserConfig, load_config
from qidf_ctl.cluster.profiles import ENV_PROFILE, Profile
from qidf_ctl.cluster.redact import redact
from qidf_ctl.errors import QidfError

profiles_app = typer.Typer(
    help="Named cluster profiles in your config file ($QIDF_CONFIG, else "
    "$XDG_CONFIG_HOME/qidf/config.toml, else ~/.config/qidf/config.toml); use one with "
    "--profile NAME or QIDF_PROFILE on any cluster command.", no_args_is_help=True)
app.add_typer(profiles_app, name="profiles")

_CHOSEN_BY = {ENV_CONFIG: f"from {ENV_CONFIG}", "XDG_CONFIG_HOME": "from XDG_CONFIG_HOME",
              "default": f"the default place; set {ENV_CONFIG} to use another file",
              "argument": "given"}


def _print(text: str) -> None:
    out.print(text, markup=False, highlight=False)


def _header(config: UserConfig) -> dict[str, Any]:
    return {"config_file": str(config.path), "chosen_by": config.chosen_by,
            "exists": config.exists, "selected": os.environ.get(ENV_PROFILE) or None}


@profiles_app.command("list")
@one_line_errors
def profiles_list(json_out: Json = False) -> None:
    """List the profiles of your config file: where each cluster is and how qidf
    authenticates there (secrets by reference only).

    Example: qidf profiles list --json
    """
    config = load_config()
    listed = {name: {**p.as_dict(), **p.describe()} for name, p in config.profiles.items()}
    if json_out:
        emit_json({**_header(config), "profiles": listed})
        return
    state = "" if config.exists else ", does not exist yet: see docs/how-to/profiles.md"
    _print(f"config file: {config.path} ({_CHOSEN_BY[config.chosen_by]}{state})")
    selected = os.environ.get(ENV_PROFILE)
    if selected:
        _print(f"{ENV_PROFILE} selects: {selected}")
    if config.exists and not listed:
        _print("no [clusters.NAME] profile in it")
    width = max((len(n) for n in listed), default=0)
    for name, described in listed.items():
        _print(f"  {name:<{width}}  {described['cluster']}  ({described['authentication']})")


def _references(profile: Profile) -> dict[str, dict[str, Any]]:
    """Each secret's and file's reference, and whether it can be used here (never a value)."""
    found: dict[str, dict[str, Any]] = {}
    for key, value in profile.as_dict().items():
        if key.endswith("_env"):
            found[key] = {"variable": value, "set": bool(os.environ.get(value))}
        elif key.endswith(("_file", "_certs", "_cert", "_key")):
            found[key] = {"path": value, "readable": os.access(value, os.R_OK)
                          and Path(value).is_file()}
    return found


@profiles_app.command("show")
@one_line_errors
def profiles_show(
    name: Annotated[str, typer.Argument(help="Profile name (a [clusters.NAME] table).")],
    json_out: Json = False,
) -> None:
    """Show one profile's keys, whether each variable and file it reads is there, and which
    QIDF_* variables of this shell would override it; checks the profile as a command would
    (reading its secrets) without connecting (exit 2 when it would fail).

    Example: qidf profiles show prod
    """
    config = load_config()
    profile = config.profile(name)
    references = _references(profile)
    overridden = sorted(var for var in ENV.values() if os.environ.get(var))
    error = None
    try:
        profile.settings(environment=True)
    except QidfError as exc:
        error = exc
    if json_out:
        emit_json({"name": name, "source": profile.source, "keys": profile.as_dict(),
                   **profile.describe(), "references": references,
                   "overridden_by": overridden, "valid": error is None,
                   "error": None if error is None else redact(str(error))})
    else:
        _print(f"profile {name} ({profile.source})")
        for key, value in profile.as_dict().items():
            if key == "name":
                continue
            ref = references.get(key)
            state = ""
            if ref is not None and "set" in ref:
                state = "  (set)" if ref["set"] else "  (NOT SET in this shell)"
            elif ref is not None:
                state = "" if ref["readable"] else "  (NOT READABLE)"
            _print(f"  {key:<24} {value}{state}")
        if overridden:
            _print(f"overridden here by: {', '.join(overridden)}")
        if error is None:
            _print("ok: every variable and file it needs is there (nothing was sent)")
    if error is not None:
        err.print(f"error: {redact(str(error))}", markup=False)
        raise typer.Exit(error.exit_code)
