"""The code detector on real files, per language: the share of files that look like code.

Issue 36: a field of Ruby files read as text because only 43% of them passed the code test
(punctuation alone). This measures the product's test (``text_shape.looks_like_code``) and
the punctuation rule it replaced on real files of every mainstream language found on this
machine (Debian-installed trees, toolchains, the research cache's unpacked packages and
exported snapshots), and on text that must not look like code: commit messages (the agent
case: an issue or a commit searched against a repository), Debian changelogs, license texts,
Markdown documentation. A seeded sample of at most ``PER_LANGUAGE`` files each, every file
read whole up to ``MAX_CHARS`` (a field value of a file-level index is the whole file).

    python -m qidf_research.detector_shares        # writes benchmarks/retrieval/detector.{json,md}
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

from qidf_ctl.stats.text_shape import CODE_TEXT_MIN, code_punctuation_share, looks_like_code
from qidf_research.paths import BENCHMARKS, CACHE

PER_LANGUAGE = 300
MAX_CHARS = 100_000
SOURCES = CACHE / "sources"
OUT = BENCHMARKS / "retrieval"
_PYLIB = sys.base_prefix + "/lib/python3.*"

# language -> (kind, glob patterns); kinds: code, config, markup, text.
GLOBS: dict[str, tuple[str, tuple[str, ...]]] = {
    "python": ("code", (f"{_PYLIB}/[!s]*/**/*.py", f"{_PYLIB}/*.py")),  # not site-packages
    "ruby": ("code", (f"{SOURCES}/debian/*/root/usr/lib/ruby/**/*.rb",
                      f"{SOURCES}/debian/*/root/usr/share/ruby*/**/*.rb",
                      f"{SOURCES}/git/*/tree/**/*.rb")),
    "perl": ("code", ("/usr/share/perl/5.*/**/*.pm", "/usr/lib/x86_64-linux-gnu/perl*/**/*.pm")),
    "shell": ("code", ("/etc/init.d/*", "/usr/share/bash-completion/completions/*",
                       "/usr/bin/*", "/usr/sbin/*", "/usr/lib/git-core/*",
                       "/usr/local/go/src/*.bash",
                       f"{SOURCES}/git/*/tree/**/*.sh")),
    "sql": ("code", ("/usr/share/postgresql/*/extension/*.sql", "/usr/share/postgresql/*/*.sql",
                     "/usr/share/postgresql-common/**/*.sql")),
    "php": ("code", (f"{SOURCES}/debian/php-*/root/usr/share/php/**/*.php",)),
    "javascript": ("code", ("/usr/share/nodejs/**/*.js", "/usr/lib/node_modules/**/*.js",
                            f"{SOURCES}/npm/*/root/package/**/*.js")),
    "typescript": ("code", (f"{SOURCES}/npm/*/root/package/**/*.ts",)),
    "go": ("code", ("/usr/local/go/src/**/*.go",)),
    "java": ("code", ("zip:/usr/lib/jvm/java-1.17.0-openjdk-amd64/lib/src.zip:.java",)),
    "kotlin": ("code", (f"zip:{SOURCES}/maven/*/*-sources.jar:.kt",)),
    "scala": ("code", (f"zip:{SOURCES}/maven/*/*-sources.jar:.scala",)),
    "c": ("code", ("/usr/include/**/*.h", f"{SOURCES}/debian/linux-source*/c/**/*.c",
                   f"{SOURCES}/git/*/tree/**/*.c")),
    "cpp": ("code", (f"{SOURCES}/git/*/tree/**/*.cc", f"{SOURCES}/git/*/tree/**/*.hpp",
                     "/usr/include/c++/**/*")),
    "rust": ("code", (f"{SOURCES}/crates/cargo-home/registry/src/*/*/src/**/*.rs",)),
    "haskell": ("code", (f"{SOURCES}/git/*/tree/**/*.hs",)),
    "elixir": ("code", (f"{SOURCES}/git/*/tree/**/*.ex",)),
    "lua": ("code", (f"{SOURCES}/debian/*/root/usr/share/**/*.lua",
                     f"{SOURCES}/debian/*/root/usr/lib/**/*.lua")),
    "makefile": ("code", ("/usr/local/go/src/**/Makefile", "/usr/share/**/Makefile*",
                          f"{SOURCES}/git/*/tree/**/Makefile")),
    "cmake": ("code", ("/usr/share/cmake*/Modules/*.cmake",
                       f"{SOURCES}/git/*/tree/**/CMakeLists.txt")),
    "yaml": ("config", ("/etc/**/*.yaml", "/etc/**/*.yml", "/usr/share/**/*.yaml",
                        "/usr/share/**/*.yml", f"{SOURCES}/git/*/tree/**/*.yml")),
    "toml": ("config", ("/root/.cargo/registry/src/*/*/Cargo.toml", "/usr/share/**/*.toml",
                        f"{SOURCES}/**/Cargo.toml", f"{SOURCES}/**/pyproject.toml")),
    "ini/conf": ("config", ("/etc/**/*.conf", "/etc/**/*.ini", "/etc/**/*.cfg",
                            "/usr/share/**/*.ini", "/usr/lib/systemd/system/*.service")),
    "json": ("config", ("/usr/share/**/*.json", f"{SOURCES}/npm/*/root/package/package.json")),
    "html": ("markup", ("/usr/share/doc/**/*.html",)),
    "xml": ("markup", ("/usr/share/**/*.xml", "/etc/**/*.xml")),
    "markdown": ("text", ("/usr/share/doc/**/*.md", f"{SOURCES}/git/*/tree/**/*.md")),
    "debian changelog": ("text", ("/usr/share/doc/*/changelog.Debian.gz",)),
    "license text": ("text", ("/usr/share/common-licenses/*", "/usr/share/doc/*/copyright")),
}
# Commit messages of the snapshots' histories: the agent case, text that names identifiers.
COMMITS_PER_REPO = 200
MIRRORS = Path("/work/.mirror")


def _read(path: str) -> str | None:
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size == 0 or p.stat().st_size > 4 * MAX_CHARS:
            return None
        raw = p.read_bytes()
    except OSError:
        return None
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    if b"\0" in raw[:4096]:
        return None  # a binary
    return raw[:MAX_CHARS].decode("utf-8", errors="replace")


def _is_shell(text: str) -> bool:
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and any(s in first for s in ("sh", "bash", "dash", "zsh"))


def _zip_members(pattern: str) -> list[str]:
    """``zip:ARCHIVES:.ext``: members ending in .ext of the archives the glob names."""
    import zipfile

    archives, ext = pattern[4:].rsplit(":", 1)
    out = []
    for a in sorted(glob.glob(archives)):
        with zipfile.ZipFile(a) as zf:
            out += [f"{a}!{n}" for n in zf.namelist() if n.endswith(ext)]
    return out


def _read_member(path: str) -> str | None:
    import zipfile

    archive, name = path.split("!", 1)
    with zipfile.ZipFile(archive) as zf:
        raw = zf.read(name)
    return raw[:MAX_CHARS].decode("utf-8", errors="replace") if raw else None


def files_of(language: str, patterns: tuple[str, ...], seed: int = 0) -> list[str]:
    paths = sorted({p for pat in patterns for p in (
        _zip_members(pat) if pat.startswith("zip:") else glob.glob(pat, recursive=True))})
    random.Random(seed).shuffle(paths)
    texts: list[str] = []
    for p in paths:
        text = _read_member(p) if "!" in p else _read(p)
        if text is None or not text.strip():
            continue
        if language == "shell" and not (p.endswith(".sh") or _is_shell(text)):
            continue
        if language == "cpp" and p.startswith("/usr/include/c++") and "\n#" not in text:
            continue
        texts.append(text)
        if len(texts) >= PER_LANGUAGE:
            break
    return texts


def commit_messages(seed: int = 0) -> list[str]:
    messages: list[str] = []
    for repo in sorted(MIRRORS.glob("*/repo")):
        out = subprocess.run(["git", "-C", str(repo), "log", "-n", str(COMMITS_PER_REPO),
                              "--no-merges", "--format=%B%x00"], capture_output=True,
                             text=True, errors="replace").stdout
        messages += [m.strip() for m in out.split("\0") if m.strip()]
    random.Random(seed).shuffle(messages)
    return messages[:PER_LANGUAGE * 4]


def shares(texts: list[str]) -> dict[str, float | int]:
    n = len(texts)
    return {"files": n,
            "code_like": sum(map(looks_like_code, texts)) / n if n else float("nan"),
            "punctuation": (sum(code_punctuation_share(t) >= CODE_TEXT_MIN for t in texts) / n
                            if n else float("nan"))}


def measure() -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {}
    for language, (kind, patterns) in GLOBS.items():
        rows[language] = {"kind": kind, **shares(files_of(language, patterns))}
        print(language, rows[language], file=sys.stderr, flush=True)
    rows["commit messages"] = {"kind": "text", **shares(commit_messages())}
    return rows


def report(rows: dict[str, dict[str, object]]) -> str:
    lines = [
        "# The code detector on real files, per language",
        "",
        "Generated by `python -m qidf_research.detector_shares` (detector.json): the share of "
        f"real files (a seeded sample of at most {PER_LANGUAGE} per language; commit messages: "
        f"{PER_LANGUAGE * 4} of the fetched snapshots' histories) that the product's test "
        "(`qidf_ctl/stats/text_shape.py`: code punctuation, or most lines code lines, "
        "`code_lines.py`) reads as code, beside the punctuation rule alone (the test before "
        "issue 36). Code, configuration and markup should pass; documentation, changelogs, "
        "licenses and commit messages should not. Files come from this machine's Debian "
        "packages and toolchains and the research cache's unpacked sources (which exist once "
        "the benchmark's corpora are built).",
        "",
        "| language | kind | files | looks like code | punctuation alone (before) |",
        "|---|---|---:|---:|---:|",
    ]
    for language, r in rows.items():
        if not r["files"]:
            lines.append(f"| {language} | {r['kind']} | 0 | - | - |")
            continue
        lines.append(f"| {language} | {r['kind']} | {r['files']:,} | {r['code_like']:.1%} | "
                     f"{r['punctuation']:.1%} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="tables from detector.json only")
    args = ap.parse_args(argv)
    path = OUT / "detector.json"
    rows = json.loads(path.read_text()) if args.report else measure()
    if not args.report:
        path.write_text(json.dumps(rows, indent=1) + "\n")
    (OUT / "detector.md").write_text(report(rows))
    print(report(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
