"""Fetch the benchmark's pinned sources and build each language's pairs, once.

Pins live in benchmarks/retrieval/sources.json. Debian packages come through
`apt-get download NAME=VERSION` (run `apt-get update` once first), npm packages through
`npm pack NAME@VERSION`, Maven source jars through `mvn dependency:copy` (classifier
`sources`), Go modules through `go mod download`; each only with its own client. Everything
is cached under .qidf/.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
import sysconfig
import tarfile
from collections.abc import Callable
from pathlib import Path

from qidf_research.corpora import (
    RetrievalTask,
    build_packaged_language,
    build_python,
    shipped_corpus,
    write_pairs,
)
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.packaged import PackageDir
from qidf_research.corpora.rules import doc_tokens
from qidf_research.paths import CACHE as RESEARCH_CACHE
from qidf_research.paths import REPO as ROOT

PINS = ROOT / "benchmarks" / "retrieval" / "sources.json"
CORPORA = RESEARCH_CACHE / "corpora"
SOURCES = RESEARCH_CACHE / "sources"
Log = Callable[[str], None]


def _pins(name: str) -> list[list[str]]:
    return json.loads(PINS.read_text())[name]["packages"]


def _license_from_copyright(path: Path) -> str:
    """The ``License:`` of a Debian copyright file's ``Files: *`` stanza (else the first)."""
    if not path.is_file():
        return "unknown"
    text = path.read_text(encoding="utf-8", errors="replace")
    star = re.search(r"^Files:\s*\*\s*$(.*?)(?:^\s*$)", text, re.M | re.S)
    for block in (star.group(1) if star else "", text):
        m = re.search(r"^License:\s*(\S.*)$", block, re.M)
        if m:
            return m.group(1).strip()
    return "unknown"


def fetch_debian(name: str, version: str, log: Log) -> PackageDir:
    """``apt-get download`` one pinned .deb and unpack it (doc and man pages kept aside)."""
    dest = SOURCES / "debian" / f"{name}_{version.replace(':', '%3a')}"
    if not (dest / ".done").is_file():
        shutil.rmtree(dest, ignore_errors=True)
        (dest / "deb").mkdir(parents=True)
        log(f"apt-get download {name}={version}")
        subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=dest / "deb",
                       check=True, capture_output=True)
        deb = next((dest / "deb").glob("*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(dest / "root")], check=True)
        (dest / ".done").write_text("ok\n")
    license_ = _license_from_copyright(dest / "root" / "usr" / "share" / "doc" / name /
                                       "copyright")
    return PackageDir(name, version, license_, dest / "root")


def fetch_npm(name: str, version: str, log: Log) -> PackageDir:
    """``npm pack`` one pinned package tarball and unpack it."""
    dest = SOURCES / "npm" / f"{name.replace('/', '+')}@{version}"
    if not (dest / ".done").is_file():
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        log(f"npm pack {name}@{version}")
        subprocess.run(["npm", "pack", f"{name}@{version}", "--pack-destination", str(dest)],
                       check=True, capture_output=True)
        tgz = next(dest.glob("*.tgz"))
        with tarfile.open(tgz) as tf:
            tf.extractall(dest / "root", filter="data")
        (dest / ".done").write_text("ok\n")
    meta = json.loads((dest / "root" / "package" / "package.json").read_text())
    lic = meta.get("license") or "unknown"
    return PackageDir(name, version, lic if isinstance(lic, str) else json.dumps(lic),
                      dest / "root" / "package")


def _packages(language: str, log: Log) -> list[PackageDir]:
    fetch = fetch_npm if language == "javascript" else fetch_debian
    pkgs = [fetch(n, v, log) for n, v in _pins(language)]
    for p in pkgs:  # documentation trees are not source code
        for sub in ("usr/share/doc", "usr/share/man", "usr/share/lintian"):
            shutil.rmtree(p.root / sub, ignore_errors=True)
    return pkgs


# Languages beyond the paper's six, each fetched and built by sources/<name>.py,
# whose ``pairs(log, stats)`` returns the language's pairs.
EXTRA_LANGUAGES = ("rust", "typescript", "kotlin", "scala", "c", "haskell", "elixir", "lua", "cpp")


def corpus_path(language: str, log: Log) -> Path:
    """The pairs file of ``language``, built on first use."""
    if language == "go":
        return shipped_corpus("go")
    out = CORPORA / f"{language}.jsonl.gz"
    if out.is_file():
        return out
    stats = BuildStats()
    log(f"building the {language} corpus")
    if language == "go-large":
        pairs = go_large_pairs(log, stats)
    elif language == "java":
        pairs = java_pairs(log, stats)
    elif language == "python":
        pairs = build_python(Path(sysconfig.get_paths()["stdlib"]), stats)
    elif language in EXTRA_LANGUAGES:
        import importlib

        pairs = importlib.import_module(f"qidf_research.sources.{language}").pairs(log, stats)
    else:
        pairs = build_packaged_language(language, _packages(language, log), stats)
    for line in stats.lines():
        log(f"  {line}")
    write_pairs(pairs, out)
    log(f"{language}: {len(pairs)} pairs -> {out}")
    return out


# --- Java: the JDK's src.zip plus source jars from Maven ---------------------------------


def fetch_maven(coord: str, version: str, license_: str, log: Log) -> PackageDir:
    """``mvn dependency:copy`` one pinned ``groupId:artifactId`` source jar (classifier
    ``sources``). The license is the pinned one, checked against the jar's own
    META-INF/LICENSE when it ships one."""
    import zipfile

    group, artifact = coord.split(":")
    dest = SOURCES / "maven" / f"{group}+{artifact}@{version}"
    jar = dest / f"{artifact}-{version}-sources.jar"
    if not jar.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        log(f"mvn dependency:copy {coord}:{version}:jar:sources")
        subprocess.run(["mvn", "-B", "-q", "dependency:copy",
                        f"-Dartifact={coord}:{version}:jar:sources",
                        f"-DoutputDirectory={dest}"], check=True, capture_output=True)
    with zipfile.ZipFile(jar) as zf:
        names = [n for n in zf.namelist()
                 if re.fullmatch(r"META-INF/LICEN[CS]E(\.txt|\.md)?", n, re.I)]
        head = zf.read(names[0]).decode("utf-8", "replace")[:3000] if names else ""
    found = next((spdx for needle, spdx in _LICENSES if needle.lower() in head.lower()), None)
    if found is not None and found != license_:
        raise RuntimeError(f"{coord}:{version}: pinned {license_}, jar's LICENSE says {found}")
    return PackageDir(coord, version, license_, jar)


def java_pairs(log: Log, stats: BuildStats) -> list:
    """The JDK's src.zip plus the pinned Maven source jars, deduplicated together under the
    CodeSearchNet rules; each pair keeps its archive's name, version and license."""
    from qidf_research.build_corpus import default_src_zip
    from qidf_research.corpora.java import LICENSE, build_java_archives, jdk_version

    src = default_src_zip()
    if not src:
        raise FileNotFoundError("no JDK src.zip (apt-get install openjdk-17-source)")
    pkgs = [PackageDir("openjdk", jdk_version(Path(src)), LICENSE, Path(src))]
    pkgs += [fetch_maven(c, v, lic, log) for c, v, lic in _pins("java-maven")]
    return build_java_archives(pkgs, stats)


# --- Prose control: the Linux man-pages project ----------------------------------------

_FONT_RE = re.compile(r"\\f(\[[^\]]*\]|\(..|.)")
_ESCAPES = {r"\-": "-", r"\(aq": "'", r"\(dq": '"', r"\(em": "-", r"\(en": "-", r"\e": "\\",
            r"\&": "", r"\ ": " ", r"\(bu": "*", r"\(rs": "\\", r"\~": " ", r"\:": ""}
_FONT_MACROS = {".B", ".I", ".BR", ".IR", ".RB", ".RI", ".BI", ".IB", ".SM", ".SB"}


def _roff_text(line: str) -> str:
    for k, v in _ESCAPES.items():
        line = line.replace(k, v)
    return _FONT_RE.sub("", line)


def _man_sections(text: str) -> dict[str, list[str]]:
    """Section name -> plain text lines, roff macros and escapes removed."""
    sections: dict[str, list[str]] = {}
    current = None
    for raw in text.splitlines():
        if raw.startswith(('.\\"', "'\\\"")):
            continue
        if raw.startswith(".SH"):
            current = raw[3:].strip().strip('"').upper()
            sections[current] = []
            continue
        if current is None:
            continue
        if raw.startswith("."):
            macro, _, args = raw.partition(" ")
            if macro in _FONT_MACROS:
                sections[current].append(_roff_text(args.replace('"', "")))
            elif macro in (".PP", ".P", ".LP", ".TP", ".IP", ".SS"):
                sections[current].append("")
                if macro in (".IP", ".SS") and args:
                    sections[current].append(_roff_text(args.strip('"')))
            continue
        sections[current].append(_roff_text(raw))
    return sections


def prose_task(max_queries: int, log: Log, seed: int = 0) -> RetrievalTask:
    """Man pages (sections 2, 3, 5, 7 ...): the NAME line's description -> the DESCRIPTION.

    Real English documentation written by people, the natural-language control: the
    query is the one-line summary after ``\\-`` in NAME, the document the whole DESCRIPTION
    section. Redirect pages (``.so``), duplicate summaries and summaries under 3 tokens go.
    """
    import random

    pkgs = [fetch_debian(n, v, log) for n, v in _pins("prose")]
    corpus: dict[str, str] = {}
    queries: dict[str, str] = {}
    seen: set[str] = set()
    for pkg in pkgs:
        for path in sorted((pkg.root / "usr" / "share" / "man").glob("man*/*.gz")):
            text = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
            if text.lstrip().startswith(".so "):
                continue
            sec = _man_sections(text)
            name = " ".join(sec.get("NAME", [])).strip()
            desc = " ".join(" ".join(sec.get("DESCRIPTION", [])).split())
            summary = name.split(" - ", 1)[1].strip() if " - " in name else ""
            key = summary.lower()
            if len(doc_tokens(summary)) < 3 or len(desc.split()) < 10 or key in seen:
                continue
            seen.add(key)
            pid = f"man:{path.parent.name}/{path.name.removesuffix('.gz')}"
            corpus[pid] = desc
            queries[pid] = summary
    ids = sorted(queries)
    if max_queries < len(ids):
        ids = sorted(random.Random(seed).sample(ids, max_queries))
    log(f"man pages: {len(corpus)} pages, {len(ids)} queries")
    return RetrievalTask("manpages-summary2description", corpus, {i: queries[i] for i in ids},
                         {i: {i: 1} for i in ids})


# --- Go beyond the standard library: modules from the Go module proxy -------------------

_LICENSES = (("Apache License", "Apache-2.0"), ("Mozilla Public License", "MPL-2.0"),
             ("Permission is hereby granted, free of charge", "MIT"),
             ("GNU AFFERO GENERAL PUBLIC LICENSE", "AGPL-3.0"), ("GNU LESSER", "LGPL"),
             ("GNU GENERAL PUBLIC LICENSE", "GPL"),
             ("Business Source License", "BUSL-1.1"),
             ("Redistribution and use in source and binary forms", "BSD"))


def _license_of(root: Path) -> str:
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING", "LICENCE"):
        path = root / name
        if path.is_file():
            head = path.read_text(encoding="utf-8", errors="replace")[:3000]
            for needle, spdx in _LICENSES:
                if needle.lower() in head.lower():
                    return spdx
            return f"see {name}"
    return "unknown"


def fetch_go_module(path: str, version: str, log: Log) -> PackageDir:
    """``go mod download`` one pinned module into .qidf/sources/gomod (read-only tree)."""
    import os

    env = dict(os.environ, GOMODCACHE=str(SOURCES / "gomod"), GOFLAGS="-mod=mod")
    log(f"go mod download {path}@{version}")
    res = subprocess.run(["go", "mod", "download", "-json", f"{path}@{version}"],
                         cwd=str(SOURCES), env=env, capture_output=True, text=True)
    info = json.loads(res.stdout or "{}")
    if res.returncode or "Dir" not in info:
        raise RuntimeError(f"go mod download {path}@{version}: {info.get('Error', res.stderr)}")
    root = Path(info["Dir"])
    return PackageDir(path, version, _license_of(root), root)


def go_large_pairs(log: Log, stats: BuildStats) -> list:
    """Go's standard library (this toolchain's src/) plus the pinned modules, deduplicated
    together under the same CodeSearchNet rules as the shipped corpus."""
    from qidf_research.build_corpus import default_goroot
    from qidf_research.corpora.go import GoSource, go_functions, go_version
    from qidf_research.corpora.packaged import PackagedSource, build_packaged

    goroot = Path(default_goroot() or "/usr/local/go")
    SOURCES.mkdir(parents=True, exist_ok=True)
    pkgs = [PackageDir("go", go_version(goroot), "BSD-3-Clause", goroot / "src")]
    pkgs += [fetch_go_module(p, v, log) for p, v in _pins("go-modules")]
    go_rules = GoSource(goroot, "")

    class GoModules(PackagedSource):
        def skip_reason(self, relpath: str, content: bytes) -> str | None:
            inner = "src/" + self.split(relpath)[1]
            return go_rules.skip_reason(inner, content) or super().skip_reason(relpath, content)

    source = GoModules("go", pkgs, (".go",),
                       lambda rel, content, pkg: go_functions(rel, content, pkg),
                       go_rules.keywords)
    return build_packaged(source, stats)
