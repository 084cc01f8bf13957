"""Installing a setting on a corpus's index and measuring it, through the cache.

One index per corpus, reused for every setting: Lucene's similarities share one norm
encoding, so switching similarity needs no reindex. A setting is first built on a scratch
index (``install.validate``: the engine compiles scripts and checks non-negative scores
that never fall with tf nor rise with length), once per distinct similarity; then the
corpus's index is closed, updated and reopened (``swap_settings``, which reopens it whatever
fails). Searches go to depth 10 (all NDCG@10 needs), ``dfs_query_then_fetch``,
queries as merged boosted term clauses (the benchmark's query form).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import QidfError
from qidf_ctl.evaluation import evaluate, indexing, runs
from qidf_ctl.evaluation.score import score_run
from qidf_ctl.install import index_ops
from qidf_ctl.install.close_swap import update_similarity
from qidf_ctl.install.state import SimilarityState, read_state
from qidf_ctl.install.validate import validate_on_scratch_index
from qidf_ctl.progress import Progress, quiet
from qidf_ctl.similarity import flatten, same_settings
from qidf_research.paths import CACHE
from qidf_research.peers.settings import Setting, default
from qidf_research.peers.split import Split
from qidf_research.peers.store import Store
from qidf_research.pipeline import ANALYZERS

ROOT = CACHE / "peers"
PREFIX = "qidf-peers-"
VALIDATED = ROOT / "validated.json"


class Validator:
    """Which similarities the engine accepted or refused, remembered across corpora."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.known: dict[str, str] = {}
        if VALIDATED.is_file():
            self.known = json.loads(VALIDATED.read_text())

    def check(self, similarity: dict[str, Any]) -> str:
        """"ok" or the engine's refusal."""
        if not similarity:
            return "ok"
        text = json.dumps(similarity, sort_keys=True)
        if text not in self.known:
            try:
                validate_on_scratch_index(self.cluster, similarity)
                self.known[text] = "ok"
            except QidfError as exc:
                self.known[text] = str(exc)
            VALIDATED.parent.mkdir(parents=True, exist_ok=True)
            VALIDATED.write_text(json.dumps(self.known, indent=0, sort_keys=True))
        return self.known[text]


class CorpusBench:
    """A corpus's index, its analysed queries and the cache of its measurements."""

    def __init__(self, cluster: Cluster, key: str, task: Any, analyzer: str, split: Split,
                 store: Store, validator: Validator, progress: Progress = quiet) -> None:
        self.cluster, self.key, self.task, self.analyzer = cluster, key, task, analyzer
        self.index = PREFIX + key
        self.split, self.store, self.validator = split, store, validator
        self.progress = progress
        self.legacy = cluster.engine.default_is_legacy_bm25
        self.terms: dict[str, Any] | None = None
        self.installed: Setting | None = None
        self.searches = 0
        self.search_seconds = 0.0

    def ensure_ready(self) -> None:
        """Index the corpus (unless the index already holds it) and analyse the queries."""
        if self.terms is not None:
            return
        indexing.ensure_index(self.cluster, self.index, self.task.corpus,
                              analyzer=self.analyzer, analysis=ANALYZERS[self.analyzer],
                              progress=self.progress)
        self.terms = self.store.terms()
        if self.terms is None or set(self.terms) != set(self.task.queries):
            self.progress(f"{self.key}: analysing {len(self.task.queries)} queries")
            self.terms = evaluate.analyze_queries(self.cluster, self.index, indexing.FIELD,
                                                  self.task.queries)
            self.store.put_terms(self.terms)
        self.installed = None  # unknown until the first install

    def ndcg(self, setting: Setting, split: str) -> dict[str, float] | None:
        """Each query's NDCG@10 on ``split`` under ``setting``; None if the engine refuses
        the setting."""
        row = self.store.get(setting.key, split)
        if row is None:
            row = self._measure(setting, split)
            self.store.put(row)
        return None if row.get("error") else dict(row["ndcg"])

    def mean(self, setting: Setting, split: str = "tuning") -> float:
        values = self.ndcg(setting, split)
        if values is None:
            return float("-inf")
        qids = self.split.of(split)
        return sum(values.get(q, 0.0) for q in qids) / max(len(qids), 1)

    def _measure(self, setting: Setting, split: str) -> dict[str, Any]:
        similarity = setting.similarity(self.legacy)
        verdict = self.validator.check(similarity)
        if verdict != "ok":
            self.progress(f"{self.key}: {setting.key} refused: {verdict}")
            return {"setting": setting.key, "split": split, "error": verdict}
        self.ensure_ready()
        assert self.terms is not None
        self._install(setting, similarity)
        qids = self.split.of(split)
        started = time.monotonic()
        run = runs.search_run(self.cluster, self.index, indexing.FIELD,
                              {q: self.terms[q] for q in qids}, k=10)
        seconds = time.monotonic() - started
        self.searches += len(qids)
        self.search_seconds += seconds
        scored = score_run(run, {q: self.task.qrels[q] for q in qids})
        ndcg = {q: round(v["NDCG@10"], 6) for q, v in scored.per_query.items()}
        self.progress(f"{self.key}: {setting.key} [{split}] NDCG@10 "
                      f"{scored.mean['NDCG@10']:.4f} ({seconds:.1f}s)")
        return {"setting": setting.key, "split": split, "ndcg": ndcg,
                "mrr10": round(scored.mean["MRR@10"], 6), "seconds": round(seconds, 2)}

    def _install(self, setting: Setting, similarity: dict[str, Any]) -> None:
        if self.installed == setting:
            return
        state = read_state(self.cluster, self.index)
        target = flatten(similarity)
        if not same_settings(state.similarity_flat, target):
            swap_settings(self.cluster, state, target)
        self.installed = setting

    def restore_default(self) -> None:
        """Leave the index with the engine's built-in default similarity."""
        if self.terms is None:
            return
        self._install(default(), {})

    def measured(self) -> Mapping[tuple[str, str], dict[str, Any]]:
        return self.store.runs


def swap_settings(cluster: Cluster, state: SimilarityState, target: dict[str, Any]) -> None:
    """close -> update to ``target`` -> open, reopened with the old settings whatever fails.
    No lease, journal or ``_meta`` record: for the benchmark's own index only (a user's index
    goes through ``install.apply``)."""
    wait = index_ops.Wait()
    index_ops.close_index(cluster, state.index, wait)
    try:
        update_similarity(cluster, state.index, target)
    except Exception:
        update_similarity(cluster, state.index, state.similarity_flat)
        raise
    finally:
        index_ops.open_index(cluster, state.index, wait)
