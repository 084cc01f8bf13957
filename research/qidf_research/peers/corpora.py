"""The peers benchmark's corpora: the retrieval benchmark's, under the same keys.

Groups, in the order they run: ``code2doc`` and ``doc2code`` (every language, standard
analyzer), ``prose`` (the natural-language controls), ``identifier`` (each language's
code2doc under the identifier-aware analyzer), ``scaling`` (Go code2doc subsets, and Go at
the paper's scale last: it is the slowest). Tasks are built exactly as bench_retrieval
builds them (same pairs, same seeded 1,000 queries).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora import RetrievalTask
from qidf_research.languages import ALL as LANGUAGES

GROUPS = ("code2doc", "doc2code", "prose", "identifier", "scaling")
PROSE = ("manpages-prose", "gitman-prose", "perlpod-prose", "pydoc-prose", "pgdoc-prose",
         "kerneldoc-prose")
SCALING = (("go", 1000), ("go", 10_000), ("go-large", 1000), ("go-large", 10_000),
           ("go-large", 100_000), ("go-large", None))
# The full DFR and IB cross products run here: one corpus per kind of task.
FULL_CROSS_PRODUCT = ("go-code2doc", "java-doc2code", "python-code2doc-identifier",
                      "kerneldoc-prose")


@dataclass(frozen=True)
class CorpusSpec:
    key: str
    group: str
    analyzer: str
    make: Callable[[int], RetrievalTask]

    @property
    def full(self) -> bool:
        return self.key in FULL_CROSS_PRODUCT


def _log(msg: str) -> None:
    from qidf_research.bench_tasks import log

    log(msg)


@lru_cache(maxsize=2)
def _pairs(language: str) -> tuple[Pair, ...]:
    from qidf_research.bench_tasks import load_corpus

    return tuple(load_corpus(language))


def _code(language: str, direction: str, n: int | None = None) -> Callable[[int], RetrievalTask]:
    def make(queries: int) -> RetrievalTask:
        from qidf_research.bench_tasks import make_task, subset

        pairs = list(_pairs(language))
        if n is not None:
            pairs = subset(pairs, n)
        return make_task(pairs, direction, queries)
    return make


def _prose(key: str) -> Callable[[int], RetrievalTask]:
    def make(queries: int) -> RetrievalTask:
        if key == "manpages-prose":
            from qidf_research.sources.pinned import prose_task

            return prose_task(queries, _log)
        from qidf_research.sources.prose import PROSE_TASKS

        return PROSE_TASKS[key](queries, _log)
    return make


def all_specs() -> list[CorpusSpec]:
    specs = [CorpusSpec(f"{lang}-{d}", d, "standard", _code(lang, d))
             for d in ("code2doc", "doc2code") for lang in LANGUAGES]
    specs += [CorpusSpec(key, "prose", "standard", _prose(key)) for key in PROSE]
    specs += [CorpusSpec(f"{lang}-code2doc-identifier", "identifier", "identifier",
                         _code(lang, "code2doc")) for lang in LANGUAGES]
    for lang, n in SCALING:
        key = f"{lang}-code2doc" + (f"-{n // 1000}k" if n else "")
        specs.append(CorpusSpec(key, "scaling", "standard", _code(lang, "code2doc", n)))
    return specs


def select(names: str) -> list[CorpusSpec]:
    """Corpora by key or group, comma-separated ("all" for every one), in run order."""
    wanted = {x.strip() for x in names.split(",") if x.strip()}
    specs = all_specs()
    if "all" in wanted:
        return specs
    unknown = wanted - {s.key for s in specs} - set(GROUPS)
    if unknown:
        raise SystemExit(f"unknown corpus or group: {', '.join(sorted(unknown))} "
                         f"(groups: {', '.join(GROUPS)})")
    return [s for s in specs if s.key in wanted or s.group in wanted]
