"""Each benchmark task's code-line shares (documents and queries) under the product's
detector, the inputs the leave-one-family-out study routes on; cached, since rebuilding
a task's texts takes minutes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from typing import Any

from qidf_research.paths import CACHE as RESEARCH_CACHE

SHAPES = RESEARCH_CACHE / "labelfree" / "shapes.json"

# --- the tasks' shares under the product's detector ---------------------------------------


def task_builders(keys: list[str]) -> dict[str, Callable[[], Any]]:
    """How to rebuild each task's texts (corpus and queries), as bench_retrieval does."""
    from qidf_research.bench_tasks import load_corpus, log, make_task, subset
    from qidf_research.sources.pinned import prose_task

    try:
        from qidf_research.sources.prose import PROSE_TASKS
    except ImportError:  # pragma: no cover
        PROSE_TASKS = {}
    out: dict[str, Callable[[], Any]] = {}
    for key in keys:
        lang, _, rest = key.partition("-")
        if key == "manpages-prose":
            out[key] = partial(prose_task, 1000, log)
        elif key in PROSE_TASKS:
            out[key] = partial(PROSE_TASKS[key], 1000, log)
        elif rest in ("code2doc", "doc2code") or rest.startswith("code2doc-"):
            direction = rest.split("-")[0]
            size = rest.split("-")[1] if "-" in rest else ""
            if lang == "go" and rest.startswith("large-"):
                continue
            def make(lang=lang, direction=direction, size=size):
                pairs = load_corpus(lang)
                if size.endswith("k"):
                    pairs = subset(pairs, int(size[:-1]) * 1000)
                return make_task(pairs, direction, 1000)
            out[key] = make
    return out


def shapes(keys: list[str]) -> dict[str, dict[str, float]]:
    """D2 shares of every task's sampled documents and queries, cached by task size."""
    from qidf_research.pipeline import shape_stats

    cache: dict[str, dict[str, float]] = (json.loads(SHAPES.read_text())
                                          if SHAPES.is_file() else {})
    builders = task_builders(keys)
    changed = False
    from qidf_research.sources.pinned import CORPORA

    for key, build in builders.items():
        if key in cache:
            continue
        lang = key.split("-")[0]
        if not built_only_ok(lang, key, CORPORA):
            continue
        try:
            task = build()
        except (FileNotFoundError, RuntimeError) as exc:
            print(f"{key}: no corpus ({exc})", file=sys.stderr)
            continue
        cache[key] = shape_stats(task.corpus, task.queries)
        changed = True
        print(f"{key}: documents {cache[key]['src_code_like_share']:.3f}, queries "
              f"{cache[key]['q_code_like_share']:.3f}", file=sys.stderr, flush=True)
    if changed:
        SHAPES.parent.mkdir(parents=True, exist_ok=True)
        SHAPES.write_text(json.dumps(cache, indent=1, sort_keys=True))
    return cache


BUILT_ONLY = False  # --built-only: never build a corpus here (another run may be building it)


def built_only_ok(lang: str, key: str, corpora: Any) -> bool:
    if not BUILT_ONLY or lang == "go":
        return True
    return not key.endswith("-prose") and (corpora / f"{lang}.jsonl.gz").is_file()
