"""Rust crates from crates.io, fetched with cargo's own client, and their pairs.

The pins (``rust`` in benchmarks/retrieval/sources.json) become the ``[dependencies]`` of a
throwaway Cargo project under .qidf/sources/crates/, each as ``=VERSION`` without default
features (fewer transitive crates to download); ``cargo fetch`` downloads and unpacks them
into a CARGO_HOME of our own there, so the user's cache is not touched. Only the pinned
crates are read, from ``$CARGO_HOME/registry/src/*/NAME-VERSION/``; the license is the
crate's Cargo.toml ``license`` field. Nothing is fetched again when every crate is there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir
from qidf_research.corpora.rust import build_rust_crates
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.paths import REPO as ROOT

PINS = ROOT / "benchmarks" / "retrieval" / "sources.json"
CRATES = RESEARCH_CACHE / "sources" / "crates"
CARGO_HOME = CRATES / "cargo-home"
PROJECT = CRATES / "project"
Log = Callable[[str], None]


def rust_pins() -> list[tuple[str, str]]:
    """(crate, exact version) pairs pinned for the rust corpus."""
    return [(n, v) for n, v in json.loads(PINS.read_text())["rust"]["packages"]]


def crate_dir(name: str, version: str, cargo_home: Path = CARGO_HOME) -> Path | None:
    """The unpacked source of one crate in cargo's registry cache, or None."""
    for path in sorted((cargo_home / "registry" / "src").glob(f"*/{name}-{version}")):
        if (path / "Cargo.toml").is_file():
            return path
    return None


def manifest(pins: list[tuple[str, str]]) -> str:
    """Cargo.toml of the throwaway project that depends on exactly the pinned crates."""
    lines = ["[package]", 'name = "qidf-rust-corpus"', 'version = "0.0.0"',
             'edition = "2021"', "publish = false", "", "[dependencies]"]
    lines += [f'{n} = {{ version = "={v}", default-features = false }}' for n, v in pins]
    return "\n".join(lines) + "\n"


def cargo_fetch(pins: list[tuple[str, str]], log: Log, project: Path = PROJECT,
                cargo_home: Path = CARGO_HOME) -> None:
    """``cargo fetch`` the pinned crates (for this host's target only) unless all are here."""
    if all(crate_dir(n, v, cargo_home) is not None for n, v in pins):
        return
    (project / "src").mkdir(parents=True, exist_ok=True)
    (project / "src" / "lib.rs").write_text("")
    (project / "Cargo.toml").write_text(manifest(pins))
    env = dict(os.environ, CARGO_HOME=str(cargo_home))
    host = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True,
                          env=env).stdout
    triple = next(line.split(":", 1)[1].strip() for line in host.splitlines()
                  if line.startswith("host:"))
    log(f"cargo fetch: {len(pins)} pinned crates (target {triple})")
    res = subprocess.run(["cargo", "fetch", "--target", triple], cwd=project, env=env,
                         capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f"cargo fetch failed:\n{res.stderr[-4000:]}")
    missing = [f"{n}-{v}" for n, v in pins if crate_dir(n, v, cargo_home) is None]
    if missing:
        raise RuntimeError(f"cargo fetch did not unpack: {', '.join(missing)}")


def crate_license(root: Path) -> str:
    """Cargo.toml's ``license`` (an SPDX expression), else its ``license-file``.

    A published crate's Cargo.toml is normalized by ``cargo package`` (one ``key = "value"``
    a line), so a regex reads it without a TOML parser (tomllib needs Python 3.11).
    """
    text = (root / "Cargo.toml").read_text(encoding="utf-8", errors="replace")
    table = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    body = table.group(1) if table else ""
    for key, shown in (("license", "{}"), ("license-file", "see {}")):
        m = re.search(rf"""^{key}\s*=\s*["']([^"']*)["']""", body, re.M)
        if m:
            return shown.format(m.group(1))
    return "unknown"


def crates(log: Log, pins: list[tuple[str, str]] | None = None) -> list[PackageDir]:
    """Every pinned crate, fetched if needed, as a PackageDir with its license."""
    pins = rust_pins() if pins is None else pins
    cargo_fetch(pins, log)
    out = []
    for name, version in pins:
        root = crate_dir(name, version)
        assert root is not None  # cargo_fetch checked
        out.append(PackageDir(name, version, crate_license(root), root))
    return out


def pairs(log: Log, stats: BuildStats) -> list[Pair]:
    """The rust corpus: the pinned crates' functions, deduplicated together."""
    return build_rust_crates(crates(log), stats)
