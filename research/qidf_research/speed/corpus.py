"""The speed benchmark's corpus: real Java and Python functions, split into the index, the
queries and the warm-up."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qidf_research.corpora import (
    Pair,
    build_java,
    build_python,
    load_pairs,
    shipped_corpus,
    write_pairs,
)
from qidf_research.speed.settings import CACHE, log


def cached_pairs(name: str, build: Callable[[], list[Pair]]) -> list[Pair]:
    """Java and Python pairs take minutes to parse: build once, keep under the user cache."""
    path = CACHE / f"{name}.jsonl.gz"
    if path.exists():
        return load_pairs(path)
    log(f"building {name} pairs (once; cached in {path})")
    pairs = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"partial-{path.name}")
    write_pairs(pairs, tmp)
    tmp.rename(path)
    return pairs


def load_all_pairs(jdk_src: Path, py_lib: Path) -> list[Pair]:
    """Go (shipped), Java (the JDK's own sources) and Python (the standard library)."""
    go = load_pairs(shipped_corpus("go"))
    java = cached_pairs(f"java-{hashlib.sha1(str(jdk_src).encode()).hexdigest()[:8]}",
                        lambda: build_java(jdk_src))
    python = cached_pairs(f"python-{hashlib.sha1(str(py_lib).encode()).hexdigest()[:8]}",
                          lambda: build_python(py_lib))
    return go + java + python


@dataclass
class Split:
    """Pairs held out as queries are not indexed: a query is never its own document."""

    indexed: list[Pair]
    queries: list[Pair]
    warmup: list[Pair]


def split_pairs(pairs: list[Pair], n_queries: int, n_warmup: int, seed: int) -> Split:
    ordered = sorted(pairs, key=lambda p: p.id)
    rng = random.Random(seed)
    held = rng.sample(range(len(ordered)), n_queries + n_warmup)
    held_set = set(held)
    return Split(
        indexed=[p for i, p in enumerate(ordered) if i not in held_set],
        queries=[ordered[i] for i in held[:n_queries]],
        warmup=[ordered[i] for i in held[n_queries:]],
    )


def documents(pairs: Sequence[Pair]) -> dict[str, str]:
    """Each pair gives two real documents: its code and its doc comment."""
    docs: dict[str, str] = {}
    for p in pairs:
        docs[f"{p.id}#code"] = p.code
        docs[f"{p.id}#doc"] = p.doc
    return docs
