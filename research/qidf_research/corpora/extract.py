"""The language-independent half of pair extraction: filter stages, dedup, ids, counts.

A language module only finds functions and their doc comments (a :class:`Source` of
:class:`Candidate`); :func:`build_pairs` applies CodeSearchNet's rules in a fixed order and
counts what each stage removed, so every language is filtered and reported the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.dedup import near_duplicates
from qidf_research.corpora.rules import (
    MIN_CODE_LINES,
    MIN_DOC_TOKENS,
    code_lines,
    doc_tokens,
    is_test_path,
    normalize_doc,
)

_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Candidate:
    """One function found in a file, before any filtering.

    ``qualname`` is the name inside the file (``Type.Method``), ``name`` the bare name the
    test/standard-method rules look at. ``doc`` is already the first paragraph of the doc
    comment ("" when there is none); ``code`` has the doc comment removed. ``tokens`` are
    the code's tokens without comments, for duplicate detection.
    """

    qualname: str
    name: str
    code: str
    doc: str
    path: str
    package: str
    tokens: tuple[str, ...]
    has_body: bool = True
    is_test: bool = False
    is_excluded_kind: bool = False  # constructor or standard method (toString, __str__)


class Source(Protocol):
    """What a language module provides: files to read and the functions in each."""

    language: str
    version: str
    license: str
    keywords: frozenset[str]  # left out of near-duplicate detection, as dpu_utils does

    def files(self) -> Iterator[tuple[str, bytes]]:
        """Yield (repo-relative path, content) of every candidate source file."""
        ...

    def skip_reason(self, relpath: str, content: bytes) -> str | None:
        """Why a file is not read at all (vendored, testdata, generated), or None."""
        ...

    def functions(self, relpath: str, content: bytes) -> list[Candidate]:
        """Every function/method declaration in one file."""
        ...


@dataclass
class BuildStats:
    """Counts per stage, in the order the stages run; printed by build_corpus."""

    files_seen: int = 0
    files_skipped: Counter[str] = field(default_factory=Counter)
    files_parsed: int = 0
    functions: int = 0
    removed: dict[str, int] = field(default_factory=dict)
    kept: int = 0

    def lines(self) -> list[str]:
        """Human-readable report, one stage a line, with what remained after each stage."""
        out = [f"files seen: {self.files_seen}"]
        for reason, n in sorted(self.files_skipped.items()):
            out.append(f"  files skipped ({reason}): {n}")
        out.append(f"files parsed: {self.files_parsed}")
        out.append(f"functions found: {self.functions}")
        left = self.functions
        for stage, n in self.removed.items():
            left -= n
            out.append(f"  - {stage}: {n}  (left {left})")
        out.append(f"pairs kept: {self.kept}")
        return out


STAGES = (
    "no body",
    "no doc comment",
    f"doc < {MIN_DOC_TOKENS} tokens",
    f"code < {MIN_CODE_LINES} lines",
    "test function",
    "constructor/standard method",
    "exact duplicate code",
    "near-duplicate code",
    "duplicate name+doc",
    "duplicate doc",
)


def _stage(c: Candidate) -> str | None:
    """The first per-function rule a candidate fails, or None when it passes them all."""
    if not c.has_body:
        return STAGES[0]
    if not c.doc.strip():
        return STAGES[1]
    if len(doc_tokens(c.doc)) < MIN_DOC_TOKENS:
        return STAGES[2]
    if code_lines(c.code) < MIN_CODE_LINES:
        return STAGES[3]
    if c.is_test:
        return STAGES[4]
    if c.is_excluded_kind:
        return STAGES[5]
    return None


def assign_ids(language: str, cands: Iterable[Candidate]) -> list[tuple[str, Candidate]]:
    """Stable ids ``<language>:<path>:<qualname>``; repeats in a file get ``#2``, ``#3``.

    Repeats (Go ``init``, Java overloads) are numbered in source order, which is stable
    for a given source version.
    """
    seen: Counter[str] = Counter()
    out: list[tuple[str, Candidate]] = []
    for c in cands:
        base = f"{language}:{c.path}:{c.qualname}"
        seen[base] += 1
        out.append((base if seen[base] == 1 else f"{base}#{seen[base]}", c))
    return out


def dedup(
    items: list[tuple[str, Candidate]],
    stats: BuildStats,
    keywords: frozenset[str] = frozenset(),
) -> list[tuple[str, Candidate]]:
    """Drop exact and near-duplicate code, then repeated (name, doc); keep the smallest id.

    Exact: same code token sequence (CodeSearchNet's first pass). Near: Allamanis (2018)
    Jaccard on identifier tokens (language keywords left out), as CodeSearchNet's second
    pass (dpu_utils' DuplicateDetector). Same name and docstring
    catches per-platform copies of one function (``file_unix.go`` / ``file_windows.go``),
    which would otherwise put two equally correct answers in the corpus. Last, any docstring
    seen before ("Deprecated: use X instead.") goes: in the code -> doc task two identical
    corpus documents tie, so a gold answer could not be ranked first for sure.
    """
    items = sorted(items, key=lambda it: it[0])
    seen_code: set[str] = set()
    exact: list[tuple[str, Candidate]] = []
    for ident, c in items:
        key = " ".join(c.tokens)
        if key in seen_code:
            continue
        seen_code.add(key)
        exact.append((ident, c))
    stats.removed[STAGES[6]] = len(items) - len(exact)

    idents = [[t for t in c.tokens if _IDENT_RE.match(t) and t not in keywords] for _, c in exact]
    drop = near_duplicates(idents)
    near = [it for i, it in enumerate(exact) if i not in drop]
    stats.removed[STAGES[7]] = len(exact) - len(near)

    seen_named: set[tuple[str, str]] = set()
    named: list[tuple[str, Candidate]] = []
    for ident, c in near:
        name_doc = (c.name, normalize_doc(c.doc))
        if name_doc not in seen_named:
            seen_named.add(name_doc)
            named.append((ident, c))
    stats.removed[STAGES[8]] = len(near) - len(named)

    seen_doc: set[str] = set()
    out: list[tuple[str, Candidate]] = []
    for ident, c in named:
        doc = normalize_doc(c.doc)
        if doc not in seen_doc:
            seen_doc.add(doc)
            out.append((ident, c))
    stats.removed[STAGES[9]] = len(named) - len(out)
    return out


def build_pairs(source: Source, stats: BuildStats | None = None) -> list[Pair]:
    """Run every rule over a source and return its pairs sorted by id."""
    stats = stats if stats is not None else BuildStats()
    passed: list[tuple[str, Candidate]] = []
    removed: Counter[str] = Counter()
    for relpath, content in source.files():
        stats.files_seen += 1
        reason = source.skip_reason(relpath, content)
        if reason is None and is_test_path(relpath):
            reason = "test path"
        if reason is not None:
            stats.files_skipped[reason] += 1
            continue
        stats.files_parsed += 1
        # Ids are given before filtering, so a rule change never renumbers surviving pairs.
        for ident, c in assign_ids(source.language, source.functions(relpath, content)):
            stats.functions += 1
            why = _stage(c)
            if why is None:
                passed.append((ident, c))
            else:
                removed[why] += 1
    stats.removed = {s: removed[s] for s in STAGES[:6]}
    kept = dedup(passed, stats, source.keywords)
    stats.kept = len(kept)
    return [
        Pair(
            id=ident,
            language=source.language,
            name=c.qualname,
            code=c.code,
            doc=c.doc,
            path=c.path,
            package=c.package,
            version=source.version,
            license=source.license,
        )
        for ident, c in kept
    ]
