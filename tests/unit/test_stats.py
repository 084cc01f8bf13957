"""``stats`` against a fake engine: df merged across shards, densities and histogram counted
by hand, deleted documents, the sample design and its intervals, the requests sent, and one
clear line for each kind of bad input."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
import sys
from collections import Counter
from typing import Any

import numpy as np
import pytest

from qidf_ctl import cli, stats
from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError, QidfError, UsageError
from qidf_ctl.stats import DocCounts, Stratified, densities, draw, per_doc

INDEX = "code"


def _tokens(text: str) -> list[str]:
    return text.lower().split()


def _matches(doc_id: str, doc: dict[str, Any], query: dict[str, Any]) -> bool:
    kind, spec = next(iter(query.items()))
    if kind == "match_all":
        return True
    if kind == "exists":
        return doc.get(spec["field"]) is not None
    if kind == "ids":
        return doc_id in spec["values"]
    if kind == "function_score":
        return _matches(doc_id, doc, spec["query"])
    if kind == "bool":
        return (all(_matches(doc_id, doc, q) for q in spec.get("filter", []))
                and not any(_matches(doc_id, doc, q) for q in spec.get("must_not", []))
                and (not spec.get("should")
                     or any(_matches(doc_id, doc, q) for q in spec["should"])))
    raise AssertionError(f"fake cannot run query {query}")


class StatsEngine:
    """Answers like one OpenSearch index with ``shards`` shards whose analyzer lower-cases and
    splits on whitespace. Deleted documents stay in each shard's statistics, as in Lucene
    until a merge; ``routing`` gives documents a custom routing value."""

    def __init__(
        self, docs: dict[str, dict[str, Any]], *, shards: int = 1,
        deleted: dict[str, dict[str, Any]] | None = None,
        routing: dict[str, str] | None = None, mapping: dict[str, Any] | None = None,
        painless: bool = True, splits_identifiers: bool | None = False,
    ) -> None:
        self.docs = docs
        self.splits_identifiers = splits_identifiers  # None: _analyze is forbidden (403)
        self.shards = shards
        self.deleted = deleted or {}
        self.routing = routing or {}
        self.mapping = mapping or {"properties": {"text": {"type": "text"},
                                                  "kw": {"type": "keyword"}}}
        self.painless = painless
        self.calls: list[tuple[str, str, Any, Any]] = []
        self.scrolls: dict[str, list[dict[str, Any]]] = {}
        self.cleared: list[str] = []

    def shard_of(self, doc_id: str) -> int:
        key = self.routing.get(doc_id, doc_id)
        return int(hashlib.md5(key.encode()).hexdigest(), 16) % self.shards

    def paths(self, method: str) -> list[str]:
        return [p for m, p, _, _ in self.calls if m == method]

    # --- request routing ------------------------------------------------------------
    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.calls.append((method, path, copy.deepcopy(body), copy.deepcopy(params)))
        if path.startswith("/nosuch"):
            raise ClusterError("index_not_found_exception: no such index", status=404)
        if path in (f"/{INDEX}/_settings/index.uuid", "/code-alias/_settings/index.uuid"):
            return {INDEX: {"settings": {"index": {"uuid": "u1"}}}}
        routes = {
            ("GET", f"/_cat/indices/{INDEX}"): lambda: [{"index": INDEX, "status": "open"}],
            ("GET", f"/{INDEX}/_mapping"): lambda: {INDEX: {"mappings": self.mapping}},
            ("GET", f"/{INDEX}/_settings"): lambda: {
                INDEX: {"settings": {"index.number_of_shards": str(self.shards)}}},
            ("GET", f"/{INDEX}/_stats/docs"): self._stats,
            ("POST", f"/{INDEX}/_count"): lambda: {"count": sum(
                _matches(i, d, body["query"]) for i, d in self.docs.items())},
            ("POST", f"/{INDEX}/_search"): lambda: self._search(body, params or {}),
            ("POST", "/_search/scroll"): lambda: self._page(body["scroll_id"], None),
            ("DELETE", "/_search/scroll"): lambda: self.cleared.extend(body["scroll_id"]),
            ("POST", f"/{INDEX}/_mtermvectors"): lambda: self._mtermvectors(body),
            ("POST", f"/{INDEX}/_termvectors"): lambda: self._lookup(body, params),
            ("GET", "/_cluster/settings"): lambda: {"defaults": {"search.max_buckets": "7"}},
            ("POST", f"/{INDEX}/_analyze"): lambda: self._analyze(body["text"]),
        }
        handler = routes.get((method, path))
        if handler is None:
            raise AssertionError(f"unexpected request {method} {path}")
        return handler()

    def _analyze(self, text: str) -> dict[str, Any]:
        """Whitespace and lower case; with ``splits_identifiers``, also camelCase and _."""
        if self.splits_identifiers is None:
            raise ClusterError("security_exception: no permissions for [indices:admin/analyze]",
                               status=403)
        if self.splits_identifiers:
            text = re.sub(r"(?<=[a-z])(?=[A-Z])|_", " ", text)
        return {"tokens": [{"token": t} for t in text.lower().split()]}

    def _stats(self) -> dict[str, Any]:
        docs = {"count": len(self.docs), "deleted": len(self.deleted)}
        return {"_all": {"primaries": {"docs": docs}, "total": {"docs": docs}}}

    def _search(self, body: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        if "aggs" in body:
            filters = body["aggs"]["df"]["filters"]["filters"]
            assert len(filters) < 7, "filters aggregation exceeds search.max_buckets"
            return {"aggregations": {"df": {"buckets": [
                {"doc_count": sum(next(iter(f["term"].values())) in _tokens(d.get("text") or "")
                                  for d in self.docs.values())} for f in filters]}}}
        query = body["query"]
        ids = [i for i, d in self.docs.items() if _matches(i, d, query)]
        score = query.get("function_score", {})
        if "random_score" in score:
            seed = score["random_score"]["seed"]
            ids.sort(key=lambda i: hashlib.md5(f"{seed}:{i}".encode()).hexdigest())
        elif "script_score" in score:
            if not self.painless:
                raise ClusterError("illegal_argument_exception: script_lang not supported "
                                   "[painless]", status=400)
            ids.sort(key=lambda i: -len(self.docs[i].get("text") or ""))
        else:
            assert body["sort"] == ["_doc"]
        if isinstance(body.get("_source"), list):  # the raw-text sample: one page, no scroll
            return {"hits": {"hits": [
                {"_id": i, "_source": {k: self.docs[i][k] for k in body["_source"]
                                       if k in self.docs[i]}} for i in ids[:body["size"]]]}}
        hits = [{"_id": i, **({"_routing": self.routing[i]} if i in self.routing else {})}
                for i in ids]
        assert "scroll" in params
        sid = f"s{len(self.scrolls)}"
        self.scrolls[sid] = hits
        return self._page(sid, body["size"])

    def _page(self, sid: str, size: int | None) -> dict[str, Any]:
        if size is not None:
            self.scrolls[sid + ":size"] = [{"size": size}]
        size = self.scrolls[sid + ":size"][0]["size"]
        page, self.scrolls[sid] = self.scrolls[sid][:size], self.scrolls[sid][size:]
        return {"_scroll_id": sid, "hits": {"hits": page}}

    def _mtermvectors(self, body: dict[str, Any]) -> dict[str, Any]:
        out = []
        for d in body["docs"]:
            assert d["term_statistics"] is False and d["positions"] is False, d
            doc = self.docs.get(d["_id"])
            if doc is None or d.get("routing") != self.routing.get(d["_id"]):
                out.append({"_id": d["_id"], "found": False})
                continue
            tvs = {}
            for f in d["fields"]:
                counts = Counter(_tokens(doc.get(f) or ""))
                if counts:
                    tvs[f] = {"terms": {t: {"term_freq": c} for t, c in counts.items()}}
            out.append({"_id": d["_id"], "found": True, "term_vectors": tvs})
        return {"docs": out}

    def _lookup(self, body: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        """An artificial document analysed with the keyword analyzer: per-shard stats."""
        (field_name, terms), = body["doc"].items()
        assert body["per_field_analyzer"] == {field_name: "keyword"}
        shard = int(params["preference"].split(":")[1])
        everything = {**self.docs, **self.deleted}
        in_shard = [_tokens(d.get(field_name) or "") for i, d in everything.items()
                    if self.shard_of(i) == shard]
        in_shard = [t for t in in_shard if t]
        df = Counter(t for toks in in_shard for t in set(toks))
        stats_ = {"doc_count": len(in_shard), "sum_doc_freq": sum(df.values()),
                  "sum_ttf": sum(len(t) for t in in_shard)}
        return {"term_vectors": {field_name: {"field_statistics": stats_, "terms": {
            t: {"term_freq": 1, **({"doc_freq": df[t]} if df[t] else {})} for t in terms}}}}


def fake(engine: StatsEngine) -> Cluster:
    return Cluster(engine, EngineInfo("opensearch", "2.19.6"), "http://fake:9200")


SMALL = {"d1": {"text": "a b b c"}, "d2": {"text": "a d"}, "d3": {"text": "E a"},
         "d4": {"kw": "x"}, "d5": {"text": ""}}


# --- exact mode ---------------------------------------------------------------------------

@pytest.mark.parametrize("shards", [1, 3])
def test_exact_counts_by_hand(shards):
    """'a' is in one document per shard with three shards: per-shard df would call it df = 1.
    Exact mode counts df across the whole index."""
    engine = StatsEngine(SMALL, shards=shards)
    result = stats.index_stats(fake(engine), INDEX)
    f = result.field("text")
    assert (result.mode, f.documents, f.vocabulary, f.total_tokens) == ("exact", 3, 5, 8)
    assert f.documents_without_tokens == 2  # d4 lacks the field, d5 is empty
    assert f.densities == pytest.approx({"tokens": 5 / 8, "vocab": 4 / 5,
                                         "types_per_token": 4 / 8,
                                         "doc_mean": (3 / 4 + 1 / 2 + 1 / 2) / 3})
    assert [(b.label, b.terms, b.tokens) for b in f.df_histogram] == [
        ("1", 4, 5), ("2", 0, 0), ("3-10", 1, 3)]
    assert f.engine is not None and (f.engine.doc_count, f.engine.sum_ttf) == (3, 8)
    assert f.engine_densities is None and f.warnings == []
    assert engine.cleared  # the scroll was cleared


def test_term_vector_requests_carry_parameters_on_every_document():
    """With ``docs``, a top-level ``parameters`` object is ignored by the engine (empty term
    vectors, silently), so each document carries them; routing goes along."""
    engine = StatsEngine(SMALL, shards=2, routing={"d2": "r7"})
    stats.index_stats(fake(engine), INDEX)
    (body, params), = [(b, p) for m, path, b, p in engine.calls
                       if path.endswith("_mtermvectors")]
    assert params == {"realtime": "false"} and "parameters" not in body
    assert {d["_id"]: d.get("routing") for d in body["docs"]} == {
        "d1": None, "d2": "r7", "d3": None, "d5": None}
    assert all(d["fields"] == ["text"] and d["field_statistics"] is False for d in body["docs"])


def test_deleted_documents_are_reported_both_ways():
    """Live df: 'b' is df = 1. Lucene's docFreq still counts the deleted d6 ('b z')."""
    engine = StatsEngine(SMALL, shards=2, deleted={"d6": {"text": "b z"}})
    result = stats.index_stats(fake(engine), INDEX)
    f = result.field("text")
    assert result.deleted_documents == 1
    assert f.densities["tokens"] == pytest.approx(5 / 8)
    assert f.engine_densities is not None
    assert f.engine_densities["tokens"] == pytest.approx(3 / 8)
    assert math.isnan(f.engine_densities["vocab"])
    assert f.engine is not None and f.engine.doc_count == 4


def test_engine_statistics_that_disagree_raise_a_warning():
    engine = StatsEngine(SMALL)
    engine_lookup = engine._lookup

    def stale(body: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
        resp = engine_lookup(body, params)
        resp["term_vectors"]["text"]["field_statistics"]["doc_count"] += 1
        return resp

    engine._lookup = stale  # type: ignore[method-assign]
    f = stats.index_stats(fake(engine), INDEX).field("text")
    assert len(f.warnings) == 1 and "differ from the documents read" in f.warnings[0]


def test_unreadable_field_is_one_clear_error():
    """copy_to targets have no _source value: term vectors come back empty."""
    engine = StatsEngine(SMALL)
    engine._mtermvectors = lambda body: {"docs": [  # type: ignore[method-assign]
        {"_id": d["_id"], "found": True, "term_vectors": {}} for d in body["docs"]]}
    with pytest.raises(QidfError, match="copy_to"):
        stats.index_stats(fake(engine), INDEX)


def test_scroll_is_cleared_when_reading_fails():
    engine = StatsEngine(SMALL)

    def broken(body: dict[str, Any]) -> dict[str, Any]:
        raise ClusterError("circuit_breaking_exception: too much", status=429)

    engine._mtermvectors = broken  # type: ignore[method-assign]
    with pytest.raises(ClusterError):
        stats.index_stats(fake(engine), INDEX)
    assert engine.cleared == ["s0"]


def test_alias_resolves_to_its_index():
    result = stats.index_stats(fake(StatsEngine(SMALL)), "code-alias")
    assert (result.name, result.index) == ("code-alias", INDEX)


@pytest.mark.parametrize("name, field, message", [
    ("nosuch", None, "index 'nosuch' not found"),
    (INDEX, "kw", "field 'kw' of 'code' is a keyword field, not analysed text"),
    (INDEX, "title", "field 'title' is not in the mapping of 'code' (text fields: text)"),
])
def test_bad_input_is_one_clear_error(name, field, message):
    with pytest.raises(QidfError, match=re.escape(message)):
        stats.index_stats(fake(StatsEngine(SMALL)), name, field=field)


def test_empty_index_is_one_clear_error():
    with pytest.raises(QidfError, match="has no documents"):
        stats.index_stats(fake(StatsEngine({})), INDEX)


def test_field_nobody_filled_is_one_clear_error():
    engine = StatsEngine({"d1": {"kw": "x"}})
    with pytest.raises(QidfError, match="no document of 'code' has a value in text"):
        stats.index_stats(fake(engine), INDEX)


def test_sample_and_exact_exclude_each_other():
    engine = StatsEngine(SMALL)
    with pytest.raises(UsageError):
        stats.index_stats(fake(engine), INDEX, sample=10, exact=True)
    assert engine.calls == []


# --- sampled mode -------------------------------------------------------------------------

def _corpus(n: int, seed: int = 0) -> dict[str, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(400)]
    docs = {}
    for i in range(n):
        length = int(rng.integers(1, 30))
        picked = rng.zipf(1.3, size=length) % len(words)
        docs[f"d{i:04d}"] = {"text": " ".join(words[k] for k in picked) + f" uniq{i}"}
    return docs


def test_a_sample_of_everything_equals_exact():
    engine = StatsEngine(_corpus(60), shards=3)
    exact = stats.index_stats(fake(engine), INDEX).field("text")
    sampled = stats.index_stats(fake(engine), INDEX, sample=1000, seed=3).field("text")
    assert sampled.mode == "sampled" and sampled.sampled_documents == 60
    assert sampled.densities == pytest.approx(exact.densities)
    assert sampled.vocabulary == pytest.approx(exact.vocabulary)
    for name, (low, high) in sampled.intervals.items():
        assert low == pytest.approx(high) == pytest.approx(exact.densities[name])


def test_sample_reads_the_longest_documents_then_a_seeded_uniform_rest():
    docs = _corpus(200)
    docs["d0007"] = {"text": " ".join(f"long{i}" for i in range(500))}
    engine = StatsEngine(docs, shards=2)
    first = stats.index_stats(fake(engine), INDEX, sample=50, seed=4).field("text")
    assert first.take_all == 10 and first.sampled_documents == 50
    assert first.counts is not None and isinstance(first.counts, Stratified)
    assert first.counts.rest_size == 190
    assert 500 in first.counts.take_all.tokens  # the long document is always read
    again = stats.index_stats(fake(engine), INDEX, sample=50, seed=4).field("text")
    other = stats.index_stats(fake(engine), INDEX, sample=50, seed=5).field("text")
    assert again.densities == first.densities != other.densities
    searches = [b for m, p, b, _ in engine.calls if p.endswith("/_search") and "query" in b]
    rest = [b for b in searches if "random_score" in b["query"]["function_score"]]
    assert rest[0]["query"]["function_score"]["random_score"] == {"seed": 4, "field": "_seq_no"}
    # The longest documents are left out of the rest: the long one is in no rest row.
    assert len(first.counts.sample.tokens) == 40 and 500 not in first.counts.sample.tokens


def test_sample_without_painless_falls_back_to_uniform_with_a_warning():
    engine = StatsEngine(_corpus(100), painless=False)
    f = stats.index_stats(fake(engine), INDEX, sample=20).field("text")
    assert f.take_all == 0 and f.sampled_documents == 20
    assert any("plain uniform" in w for w in f.warnings)


def test_sampled_df_is_index_wide_through_term_dictionary_lookups():
    """Without deletions, df comes from Lucene's docFreq summed over shards (no filters)."""
    engine = StatsEngine(_corpus(80), shards=3)
    stats.index_stats(fake(engine), INDEX, sample=20)
    lookups = [p["preference"] for m, path, _, p in engine.calls if path.endswith("_termvectors")]
    assert {"_shards:0", "_shards:1", "_shards:2"} <= set(lookups)
    assert not any("aggs" in (b or {}) for _, _, b, _ in engine.calls)


def test_sampled_df_counts_live_documents_when_some_are_deleted():
    """With deletions, a filters aggregation per batch (below search.max_buckets = 7)."""
    docs = _corpus(40)
    engine = StatsEngine(docs, deleted={"gone": {"text": "uniq3 uniq5"}})
    exact = stats.index_stats(fake(engine), INDEX).field("text")
    f = stats.index_stats(fake(engine), INDEX, sample=40).field("text")
    assert any("aggs" in (b or {}) for _, _, b, _ in engine.calls)
    assert f.densities == pytest.approx(exact.densities)
    assert f.engine_densities is not None
    assert f.engine_densities["tokens"] < f.densities["tokens"]


# --- pure pieces ----------------------------------------------------------------------------

def test_df_bins():
    assert stats.df_bins(1) == [(1, 1), (2, 2), (3, 10)]
    assert stats.df_bins(10) == [(1, 1), (2, 2), (3, 10)]
    assert stats.df_bins(11) == [(1, 1), (2, 2), (3, 10), (11, 100)]
    assert stats.df_bins(1001)[-1] == (1001, 10000)


def test_histogram_sums_weights_per_bin():
    df = np.array([1, 1, 2, 5, 10, 11, 100, 101])
    bins = stats.histogram(df, np.ones(8), df * 2.0)
    assert [(b.label, b.terms, b.tokens) for b in bins] == [
        ("1", 2, 4), ("2", 1, 4), ("3-10", 2, 30), ("11-100", 2, 222), ("101-1000", 1, 202)]


def test_per_doc_counts_and_densities():
    # doc 0: terms 0 (tf 2), 1 (tf 1); doc 1: no tokens; doc 2: terms 1, 2 (tf 3)
    counts = per_doc(np.array([0, 1, 1, 2]), np.array([2, 1, 1, 3]), np.array([2, 0, 2]),
                     df=np.array([1, 2, 1]))
    assert counts.tokens.tolist() == [3, 0, 4]
    assert counts.hapax_tokens.tolist() == [2, 0, 3]
    assert counts.hapax_types.tolist() == [1, 0, 1]
    assert counts.inv_df.tolist() == [1.5, 0.0, 1.5]
    assert densities(counts, vocabulary=3) == pytest.approx(
        {"tokens": 5 / 7, "vocab": 2 / 3, "types_per_token": 2 / 7,
         "doc_mean": (2 / 3 + 3 / 4) / 2})


def test_per_doc_in_runs_equals_one_pass(monkeypatch):
    """The exact pass of a 10M-document index counts a run of documents at a time; the
    runs (tiny here, so documents longer than a run and empty ones occur) change nothing."""
    dens = sys.modules["qidf_ctl.stats.densities"]
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 9, size=500)
    lengths[[7, 100]] = [40, 0]
    term_ids = rng.integers(0, 300, size=int(lengths.sum()))
    tfs = rng.integers(1, 5, size=len(term_ids))
    df_one, _ = dens.term_totals(term_ids, tfs, 300)
    whole = dens.per_doc(term_ids, tfs, lengths, df_one)
    monkeypatch.setattr(dens, "CHUNK_ENTRIES", 16)
    assert len(dens.doc_chunks(lengths)) > 20
    df, ttf = dens.term_totals(term_ids, tfs, 300)
    assert df.tolist() == np.bincount(term_ids, minlength=300).tolist() == df_one.tolist()
    assert ttf.tolist() == np.bincount(term_ids, weights=tfs, minlength=300).tolist()
    runs = dens.per_doc(term_ids, tfs, lengths, df)
    for name in ("tokens", "hapax_tokens", "hapax_types", "inv_df"):
        assert getattr(runs, name).tolist() == pytest.approx(getattr(whole, name).tolist())
    assert len(runs) == 500
    assert len(dens.per_doc(term_ids[:0], tfs[:0], lengths[:0], df)) == 0


def _heavy_tailed(n: int, seed: int = 0) -> DocCounts:
    """Like real code: log-normal lengths, plus ten huge documents that are mostly df = 1
    material (data tables, generated constants)."""
    rng = np.random.default_rng(seed)
    tokens = np.maximum(1, rng.lognormal(3, 1.3, n)).astype(np.int64)
    share = rng.beta(1, 12, n)
    huge = rng.choice(n, size=10, replace=False)
    tokens[huge] = rng.integers(5_000, 20_000, size=10)
    share[huge] = rng.uniform(0.5, 0.95, size=10)
    hapax = rng.binomial(tokens, share)
    types = rng.binomial(hapax, 0.8)
    return DocCounts(tokens, hapax, types, tokens * 0.4 + types * 0.6)


def test_stratified_intervals_cover_at_their_nominal_rate():
    """The design reads the longest documents in full: its 95% intervals cover about 95% of
    the time (the percentile bootstrap runs a little under on skewed data: 181-193 of 200
    measured here, hence 176). A plain uniform sample of the same size misses the huge
    documents, and its intervals cover fewer than half of the time."""
    population = _heavy_tailed(10_000)
    truth = densities(population)
    covered: Counter[str] = Counter()
    plain = 0
    for seed in range(200):
        design = draw(population, population.tokens, 500, seed)
        for name, (low, high) in design.intervals(seed=seed, resamples=400).items():
            covered[name] += low <= truth[name] <= high
        if seed < 50:
            picked = np.random.default_rng(seed).choice(len(population), 500, replace=False)
            uniform = Stratified(population.take(slice(0, 0)), population.take(picked),
                                 len(population))
            low, high = uniform.intervals(seed=seed, resamples=400)["tokens"]
            plain += low <= truth["tokens"] <= high
    assert min(covered.values()) >= 176, covered
    assert plain < 25


def test_interval_narrows_to_nothing_when_the_sample_is_everything():
    population = _heavy_tailed(300)
    design = Stratified(population.take(slice(0, 50)), population.take(slice(50, None)), 250)
    for name, (low, high) in design.intervals().items():
        assert low == pytest.approx(high) == pytest.approx(densities(population)[name])


# --- CLI ----------------------------------------------------------------------------------

def run(argv: list[str], capsys, monkeypatch, engine: StatsEngine | None = None):
    if engine is not None:
        monkeypatch.setattr(Cluster, "connect", classmethod(lambda cls, s: fake(engine)))
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


def test_stats_json_is_one_object(capsys, monkeypatch):
    code, out, _ = run(["stats", INDEX, "--json"], capsys, monkeypatch, StatsEngine(SMALL))
    payload = json.loads(out)
    assert code == 0 and payload["mode"] == "exact"
    assert payload["predictor"]["name"] == "qidf-content"  # the default
    assert payload["fields"][0]["densities"]["tokens"] == pytest.approx(5 / 8)
    names = payload["statistics"]
    assert names["densities"]["tokens"]["name"] == "hapax token share"
    assert names["densities"]["types_per_token"]["name"] == "hapax terms per token"
    every = [v["name"] for group in names.values() for v in group.values()]
    assert len(every) == len(set(every))  # no two statistics share a name
    shape = payload["fields"][0]["source_shape"]
    assert shape["texts"] == 4 and shape["code_like_share"] == 0.0
    assert payload["fields"][0]["hapax_terms"]["terms"] == 4  # b, c, d, e


def test_stats_human_output_names_every_density(capsys, monkeypatch):
    code, out, _ = run(["stats", INDEX], capsys, monkeypatch, StatsEngine(SMALL))
    assert code == 0
    flat = " ".join(re.sub(r"[│┃]", " ", out).split())  # the tables may wrap long cells
    for key in stats.NAMES:
        assert key in flat
    assert "hapax token share" in flat and "hapax terms per token" in flat
    assert "hapax density" not in flat and "glued" in flat and "look like code" in flat
    assert "df and N count live documents" in out and "Default predictor qidf-content" in out
    # labels never run into their values (issue 25): two spaces at least, at 80 columns
    assert re.search(r"\n  analyzer splits identifiers {2,}no: identifiers stay whole", out)
    assert re.search(r"\n  documents with tokens \(N\) {2,}\S", out)


def test_stats_report_whether_the_analyzer_splits_identifiers(capsys, monkeypatch):
    engine = StatsEngine(SMALL, splits_identifiers=True)
    code, out, _ = run(["stats", INDEX, "--json"], capsys, monkeypatch, engine)
    assert code == 0
    assert json.loads(out)["fields"][0]["splits_identifiers"] == ["camelCase", "snake_case"]


def test_a_forbidden_analyze_leaves_the_question_open_with_a_warning(capsys, monkeypatch):
    engine = StatsEngine(SMALL, splits_identifiers=None)
    code, out, _ = run(["stats", INDEX, "--json"], capsys, monkeypatch, engine)
    field = json.loads(out)["fields"][0]
    assert code == 0 and field["splits_identifiers"] is None
    assert any("not allowed to call _analyze" in w for w in field["warnings"])
    code, _, err = run(["stats", INDEX], capsys, monkeypatch, engine)
    assert code == 0 and "warning: not allowed to call _analyze" in err


@pytest.mark.parametrize("argv, fragment", [
    (["stats", "nosuch"], "index 'nosuch' not found"),
    (["stats", INDEX, "--field", "kw"], "is a keyword field"),
    (["stats", INDEX, "--sample", "5", "--exact"], "exclude each other"),
])
def test_stats_errors_are_one_line(argv, fragment, capsys, monkeypatch):
    code, out, err = run(argv, capsys, monkeypatch, StatsEngine(SMALL))
    assert code in (2, 5) and out == ""
    assert err.count("\n") == 1 and fragment in err


def test_stats_empty_index_is_one_line(capsys, monkeypatch):
    code, _, err = run(["stats", INDEX], capsys, monkeypatch, StatsEngine({}))
    assert code == 1 and err == f"error: index {INDEX!r} has no documents: nothing to measure\n"


def test_sample_below_one_is_refused_before_any_cluster_call(capsys, monkeypatch):
    engine = StatsEngine(SMALL)
    code, _, err = run(["stats", INDEX, "--sample", "0"], capsys, monkeypatch, engine)
    assert code == 2 and err.count("\n") == 1 and "--sample" in err
    assert engine.calls == []
