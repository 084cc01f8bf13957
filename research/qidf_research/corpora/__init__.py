"""CodeSearchNet-style (function, docstring) pairs from real source code.

Build pairs from a source tree (``build_go``, ``build_java``, ``build_python``; Ruby, PHP
and JavaScript from unpacked packages with ``build_packaged_language``), store them
(``write_pairs``/``load_pairs``), and turn them into retrieval tasks (``code_to_doc`` is
CoIR's direction, the one the paper reports). Building needs the ``corpus`` extra
(Tree-sitter); loading a shipped corpus (``shipped_corpus("go")``) needs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from qidf_ctl.demo.corpus import shipped_corpus
from qidf_ctl.evaluation.pairs import Pair, load_pairs, write_pairs
from qidf_ctl.evaluation.tasks import RetrievalTask, code_to_doc, doc_to_code

if TYPE_CHECKING:
    from qidf_research.corpora.extract import BuildStats
    from qidf_research.corpora.packaged import PackageDir


def build_go(goroot: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a Go toolchain's source tree (``go env GOROOT``), sorted by id."""
    from qidf_research.corpora.go import build_go as _build

    return _build(Path(goroot), stats)


def build_java(src_zip: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a JDK's ``lib/src.zip`` (GPLv2+CPE: build locally, never ship)."""
    from qidf_research.corpora.java import build_java as _build

    return _build(Path(src_zip), stats)


def build_packaged_language(
    language: str, packages: list[PackageDir], stats: BuildStats | None = None
) -> list[Pair]:
    """Pairs of ``ruby``, ``php`` or ``javascript`` from unpacked packages (Debian, npm),
    each pair stamped with its own package, version and license."""
    from qidf_research.corpora import javascript, php, ruby
    from qidf_research.corpora.packaged import PackagedSource, build_packaged

    extractors = {
        "ruby": (ruby.ruby_functions, ruby.EXTENSIONS, ruby.KEYWORDS),
        "php": (php.php_functions, php.EXTENSIONS, php.KEYWORDS),
        "javascript": (javascript.js_functions, javascript.EXTENSIONS, javascript.KEYWORDS),
    }
    if language not in extractors:
        raise ValueError(f"no package builder for {language!r}: {', '.join(extractors)}")
    extract, extensions, keywords = extractors[language]
    source = PackagedSource(language, list(packages), extensions, extract, keywords)
    return build_packaged(source, stats)


def build_python(libdir: Path, stats: BuildStats | None = None) -> list[Pair]:
    """Pairs from a CPython standard library directory (``lib/python3.X``)."""
    from qidf_research.corpora.python import build_python as _build

    return _build(Path(libdir), stats)


__all__ = [
    "Pair",
    "RetrievalTask",
    "build_go",
    "build_java",
    "build_packaged_language",
    "build_python",
    "code_to_doc",
    "doc_to_code",
    "load_pairs",
    "shipped_corpus",
    "write_pairs",
]
