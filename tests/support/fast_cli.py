"""Build the typer command tree once for tests that run the CLI hundreds of times: typer
rebuilds it (every option of every command) on each call, about 0.2 s on a busy machine.
What runs is unchanged; only the rebuilding is skipped."""

from __future__ import annotations

import typer.main

_real = typer.main.get_command
_cache: dict[int, object] = {}


def cached_get_command(app: typer.Typer):
    key = id(app)
    if key not in _cache:
        _cache[key] = _real(app)
    return _cache[key]


def install(monkeypatch) -> None:
    monkeypatch.setattr(typer.main, "get_command", cached_get_command)
