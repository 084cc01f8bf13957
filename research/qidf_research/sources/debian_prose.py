"""Natural-language controls at production size, from the Debian archive, and a mixed index.

The prose controls of sources/prose.py hold 177 to 6,634 documents; production indices of
documentation, tickets or catalogs hold 100K-10M. These corpora are built the same way (a
summary or heading written by the authors as its own field -> the text it summarises, no
query text derived from the document, duplicates and ambiguous queries removed by
``prose.clean_pairs``) at 50K-300K documents:

- ``debdesc``: Debian package descriptions, the one-line summary ("Real-time strategy game
  of ancient warfare") -> the long description, from ``Translation-en`` of bullseye (11),
  bookworm (12) and trixie (13), main; a package in several suites keeps its newest text.
  Written by each package's maintainers; Debian main is DFSG-free (no BUSL, SSPL or
  proprietary terms; a package's own license is not in the index, so AGPL ones cannot be
  told apart and stay).
- ``debman``: man pages of the pinned packages, NAME summary -> DESCRIPTION
  (sources/debian_manpages.py). 63,931 distinct pages give 40,813 pairs: a third of the pages
  have a summary under 3 tokens ("temperature monitor") or a DESCRIPTION under 10 words.
- ``debdocs``: both English corpora in one index (package catalog and manual pages),
  filtered again as a whole.
- ``debmulti``: both, plus the descriptions' translations by the Debian Description
  Translation Project (trixie: Danish, Italian, French, German, Slovak, Polish, Brazilian
  Portuguese; ``Description-LANG`` summary -> text): one index of real prose in eight
  languages, as product catalogs and documentation portals often are. Filtered again as a
  whole, so a summary shared across sources is ambiguous there too.
- ``mixed``: ``debdesc`` plus the Java corpus's pairs in CodeSearchNet's direction (query =
  a docstring, document = the function's code): code and prose in one field, searched with
  natural language.

Every corpus also comes in seeded nested subsets (the first n of one seeded permutation of
its pairs), so a statistic's size behaviour is measured on prose, not extrapolated. Pairs
are cached in .qidf/corpora/<name>.jsonl.gz (git-ignored); pins and licenses are in the
``debian-descriptions`` and ``debian-manpages`` keys of benchmarks/retrieval/sources.json.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from qidf_research.corpora import RetrievalTask
from qidf_research.sources.pinned import CORPORA, Log

SUITES = ("bullseye", "bookworm", "trixie")  # oldest first: a newer text replaces an older
TRANSLATED = ("da", "it", "fr", "de", "sk", "pl", "pt_BR")
TRANSLATION_SUITE = "trixie"
SIZES = (1000, 3000, 10_000, 30_000, 100_000)  # nested subsets below the full corpus
LARGE_PROSE = ("debdesc", "debman", "debdocs", "debmulti")
MIXED_CODE = "java"
MIXED_KEY = "mixed-java-debdesc"


@dataclass(frozen=True)
class ProsePair:
    """One query -> document pair with its provenance."""

    id: str
    query: str
    doc: str
    source: str  # debdesc, debdesc-da, debman, java, ...
    license: str


# --- building and caching -------------------------------------------------------------------


def _cached(name: str, build: Callable[[Log], list[ProsePair]], log: Log) -> list[ProsePair]:
    path = CORPORA / f"{name}.jsonl.gz"
    if not path.is_file():
        log(f"building the {name} corpus")
        pairs = build(log)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                    mtime=0) as gz:
            for p in pairs:
                gz.write((json.dumps(asdict(p), ensure_ascii=False) + "\n").encode())
        tmp.replace(path)
        log(f"{name}: {len(pairs)} pairs -> {path}")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [ProsePair(**json.loads(line)) for line in fh]


def _descriptions(lang: str, suites: tuple[str, ...], log: Log) -> list[ProsePair]:
    from qidf_research.sources.debian_index import descriptions, translation
    from qidf_research.sources.prose import clean_pairs

    newest: dict[str, tuple[str, str]] = {}
    for suite in suites:
        for d in descriptions(translation(suite, lang, log)):
            newest[d.package] = (d.summary, d.body)
    source = "debdesc" if lang == "en" else f"debdesc-{lang}"
    kept = clean_pairs((f"{source}:{pkg}", s, b) for pkg, (s, b) in sorted(newest.items()))
    log(f"  {source}: {len(newest)} packages, {len(kept)} pairs after the filters")
    return [ProsePair(i, q, d, source, "Debian main (DFSG-free), each package's own")
            for i, q, d in kept]


def debdesc_pairs(log: Log) -> list[ProsePair]:
    return _cached("debdesc", lambda lg: _descriptions("en", SUITES, lg), log)


def debman_pairs(log: Log) -> list[ProsePair]:
    def build(lg: Log) -> list[ProsePair]:
        from qidf_research.sources.debian_manpages import manpage_pairs

        return [ProsePair(i, q, d, "debman", lic) for i, q, d, lic in manpage_pairs(lg)]

    return _cached("debman", build, log)


def _union(parts: list[ProsePair]) -> list[ProsePair]:
    """Several sources as one corpus, filtered again as a whole (a summary or text two
    sources share is ambiguous there too)."""
    from qidf_research.sources.prose import clean_pairs

    by_id = {p.id: p for p in parts}
    return [by_id[i] for i, _, _ in clean_pairs((p.id, p.query, p.doc) for p in parts)]


def debdocs_pairs(log: Log) -> list[ProsePair]:
    return _cached("debdocs", lambda lg: _union(debdesc_pairs(lg) + debman_pairs(lg)), log)


def debmulti_pairs(log: Log) -> list[ProsePair]:
    def build(lg: Log) -> list[ProsePair]:
        parts = debdesc_pairs(lg) + debman_pairs(lg)
        for lang in TRANSLATED:
            parts += _descriptions(lang, (TRANSLATION_SUITE,), lg)
        return _union(parts)

    return _cached("debmulti", build, log)


def mixed_pairs(log: Log) -> list[ProsePair]:
    """Package descriptions plus Java (docstring -> code) pairs, in one corpus."""
    def build(lg: Log) -> list[ProsePair]:
        from qidf_research.bench_tasks import load_corpus

        code = [ProsePair(f"{MIXED_CODE}:{p.id}", p.doc, p.code, MIXED_CODE, p.license)
                for p in load_corpus(MIXED_CODE)]
        return debdesc_pairs(lg) + code

    return _cached("mixed", build, log)


CORPORA_BUILDERS: dict[str, Callable[[Log], list[ProsePair]]] = {
    "debdesc": debdesc_pairs, "debman": debman_pairs, "debdocs": debdocs_pairs,
    "debmulti": debmulti_pairs, "mixed": mixed_pairs,
}


# --- tasks -----------------------------------------------------------------------------------


def nested(pairs: list[ProsePair], n: int, seed: int = 0) -> list[ProsePair]:
    """The first ``n`` pairs of one seeded permutation: subsets of growing n are nested."""
    ordered = sorted(pairs, key=lambda p: p.id)
    random.Random(seed).shuffle(ordered)
    return ordered[:n]


def task(name: str, pairs: list[ProsePair], max_queries: int, seed: int = 0) -> RetrievalTask:
    """Corpus = every document of ``pairs``; queries = a seeded sample of theirs."""
    corpus = {p.id: p.doc for p in pairs}
    queries = {p.id: p.query for p in pairs}
    if len(corpus) != len(pairs):
        raise ValueError(f"{name}: document ids must be unique")
    ids = sorted(queries)
    if max_queries < len(ids):
        ids = sorted(random.Random(seed).sample(ids, max_queries))
    return RetrievalTask(name, corpus, {i: queries[i] for i in ids}, {i: {i: 1} for i in ids})


def task_keys(corpus: str, full: int) -> list[tuple[str, int | None]]:
    """(benchmark key, subset size or None for the full corpus), smallest first; the mixed
    index is measured at full size only."""
    if corpus == "mixed":
        return [(MIXED_KEY, None)]
    keys: list[tuple[str, int | None]] = [(f"{corpus}-prose-{n // 1000}k", n) for n in SIZES
                                          if n < full]
    return [*keys, (f"{corpus}-prose", None)]


def load(corpus: str, log: Log) -> list[ProsePair]:
    return CORPORA_BUILDERS[corpus](log)


def size_of(path: Path) -> int:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return sum(1 for _ in fh)
