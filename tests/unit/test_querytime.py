"""Query-time q-log without a cluster: the boosts (and why they equal the installed
similarity's scores), the query body, the df cache, and the exact requests for statistics."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest

from qidf_ctl.cluster import Cluster, EngineInfo
from qidf_ctl.errors import ClusterError, ConflictError, UsageError
from qidf_ctl.evaluation.queries import term_query
from qidf_ctl.formula import IdfForm, idf
from qidf_ctl.querytime import (
    DFS,
    DfCache,
    QueryTime,
    Target,
    TermStats,
    boosted_query,
    boosts,
    idf_ratio,
    index_statistics,
    inspect,
    shard_statistics,
)
from qidf_ctl.querytime import statistics as stats_mod

# --- boosts -------------------------------------------------------------------------------


@pytest.mark.parametrize(("n_docs", "df"), [(1, 1), (13994, 1), (13994, 7000), (10**9, 3)])
def test_q1_ratio_is_exactly_one(n_docs, df):
    assert idf_ratio(1.0, n_docs, df) == 1.0


def test_unseen_token_keeps_ratio_one():
    assert idf_ratio(0.3, 13994, 0) == 1.0
    assert idf_ratio(0.3, 0, 0) == 1.0


def test_ratio_is_the_formula_over_bm25():
    for q in (0.05, 0.3, 0.6, 1.5):
        for form in IdfForm:
            expected = idf(q, 5000, 17, form) / idf(1.0, 5000, 17, IdfForm.LUCENE)
            assert idf_ratio(q, 5000, 17, form) == expected


def test_boosts_multiply_the_repeat_count():
    stats = TermStats(1000, {"a": 1, "b": 900})
    got = boosts(Counter({"a": 3, "b": 1, "zz": 2}), stats, 0.3)
    assert got["a"] == 3 * idf_ratio(0.3, 1000, 1)
    assert got["b"] == idf_ratio(0.3, 1000, 900)
    assert got["zz"] == 2.0
    assert got["a"] / 3 > got["b"]  # rare terms gain


def _tf(freq: float, length: float, avgdl: float, k1: float, b: float) -> float:
    return freq / (freq + k1 * (1 - b + b * length / avgdl))


@pytest.mark.parametrize("legacy", [True, False])
@pytest.mark.parametrize(("k1", "b"), [(1.2, 0.75), (0.9, 0.4), (2.0, 1.0)])
def test_boost_scores_equal_installed_qlog_on_either_bm25_variant(legacy, k1, b):
    """LegacyBM25 multiplies every weight by (k1 + 1): both sides carry it, so it cancels;
    k1, b and the norms are the index's own on both sides."""
    factor = (k1 + 1) if legacy else 1.0
    n_docs, avgdl = 13994, 17.3
    docs = [(1, 4.0), (3, 40.0), (2, 17.0)]
    terms = {"fileinfo": (17, 2), "func": (79, 1), "the": (9000, 1)}
    stats = TermStats(n_docs, {t: df for t, (df, _) in terms.items()})
    counts = Counter({t: c for t, (_, c) in terms.items()})
    bst = boosts(counts, stats, 0.3)
    for freq, length in docs:
        tf = _tf(freq, length, avgdl, k1, b)
        for t, (df, count) in terms.items():
            installed = count * factor * idf(0.3, n_docs, df) * tf
            query_time = bst[t] * factor * idf(1.0, n_docs, df) * tf
            assert math.isclose(installed, query_time, rel_tol=1e-12)


# --- the query body -----------------------------------------------------------------------


def test_q1_body_is_the_plain_bm25_query():
    counts = Counter({"func": 2, "fileinfo": 1, "nosuchtoken": 1})
    stats = TermStats(13994, {"func": 79, "fileinfo": 17})
    assert boosted_query("text", counts, boosts(counts, stats, 1.0)) == term_query("text", counts)


def test_body_keeps_term_query_clauses_under_the_clause_limit():
    counts = Counter({f"t{i}": 1 + i % 3 for i in range(50)})
    stats = TermStats(100, {f"t{i}": 1 + i for i in range(50)})
    body = boosted_query("text", counts, boosts(counts, stats, 0.3), max_clauses=10)
    plain = term_query("text", counts, 10)
    kept = [c["term"]["text"]["value"] for c in body["bool"]["should"]]
    assert kept == [c["term"]["text"]["value"] for c in plain["bool"]["should"]]
    assert len(kept) == 10


def test_filters_restrict_and_keep_one_term_required():
    counts = Counter({"a": 1})
    body = boosted_query("text", counts, {"a": 2.5}, filters=[{"term": {"lang": "go"}}])
    assert body["bool"]["filter"] == [{"term": {"lang": "go"}}]
    assert body["bool"]["minimum_should_match"] == 1
    assert body["bool"]["should"][0]["term"]["text"]["boost"] == 2.5
    body = boosted_query("text", counts, {"a": 2.5}, minimum_should_match="30%")
    assert body["bool"]["minimum_should_match"] == "30%"
    assert "filter" not in body["bool"]


def test_no_token_matches_nothing():
    assert boosted_query("text", Counter(), {}) == {"match_none": {}}


# --- the df cache -------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _fetcher(log: list[list[str]], n: int = 100):
    def fetch(terms):
        log.append(list(terms))
        return TermStats(n, {t: len(t) for t in terms}, "shard:0")
    return fetch


def test_cache_fetches_only_missing_terms():
    log: list[list[str]] = []
    cache = DfCache(clock=Clock())
    key = ("idx", "text", "shard:0")
    first = cache.lookup(key, ["ab", "abc"], _fetcher(log))
    second = cache.lookup(key, ["abc", "abcd", "abc"], _fetcher(log))
    assert log == [["ab", "abc"], ["abcd"]]
    assert first.df == {"ab": 2, "abc": 3} and second.df == {"abc": 3, "abcd": 4}
    assert second.doc_count == 100
    assert cache.lookup(key, ["ab"], _fetcher(log)).df == {"ab": 2}
    assert len(log) == 2
    assert (cache.counts.hits, cache.counts.misses) == (2, 3)


def test_cache_entries_expire():
    log: list[list[str]] = []
    clock = Clock()
    cache = DfCache(ttl_seconds=10, clock=clock)
    key = ("idx", "text", "index")
    cache.lookup(key, ["a"], _fetcher(log))
    clock.now = 9.9
    cache.lookup(key, ["a"], _fetcher(log))
    clock.now = 10.0
    cache.lookup(key, ["a"], _fetcher(log, n=200))
    assert log == [["a"], ["a"]]


def test_cache_refreshes_n_even_when_every_term_is_cached():
    log: list[list[str]] = []
    clock = Clock()
    cache = DfCache(max_terms=2, clock=clock)
    key = ("idx", "text", "index")
    cache.lookup(key, ["a"], _fetcher(log))   # holds N and "a"
    cache.lookup(key, ["b"], _fetcher(log))   # N refreshed, "a" evicted (least recent)
    assert len(cache) == 2
    cache.lookup(key, ["a"], _fetcher(log))
    assert log == [["a"], ["b"], ["a"]]


def test_cache_off_with_ttl_zero():
    log: list[list[str]] = []
    cache = DfCache(ttl_seconds=0, clock=Clock())
    key = ("idx", "text", "index")
    cache.lookup(key, ["a"], _fetcher(log))
    cache.lookup(key, ["a"], _fetcher(log))
    assert log == [["a"], ["a"]] and len(cache) == 0


def test_cache_keys_keep_scopes_apart():
    log: list[list[str]] = []
    cache = DfCache(clock=Clock())
    cache.lookup(("idx", "text", "shard:0"), ["a"], _fetcher(log))
    cache.lookup(("idx", "text", "shard:1"), ["a"], _fetcher(log))
    cache.lookup(("idx", "body", "shard:0"), ["a"], _fetcher(log))
    assert len(log) == 3


# --- requests for statistics --------------------------------------------------------------


class Fake:
    """Answers by (method, path); records every request."""

    def __init__(self, answers: dict[tuple[str, str], Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, str, Any, Any]] = []

    def __call__(self, method: str, path: str, body: Any = None, params: Any = None) -> Any:
        self.calls.append((method, path, body, params))
        answer = self.answers.get((method, path))
        if answer is None:
            raise AssertionError(f"unexpected request {method} {path}")
        return answer(body, params) if callable(answer) else answer


def _cluster(fake: Fake) -> Cluster:
    return Cluster(fake, EngineInfo("opensearch", "2.19.6"), "http://fake:9200")


def _tv_answer(body, params):
    terms = body["doc"]["text"]
    return {"term_vectors": {"text": {
        "field_statistics": {"doc_count": 500, "sum_doc_freq": 1, "sum_ttf": 1},
        "terms": {t: ({"term_freq": 1, "doc_freq": 3} if t != "unseen" else {"term_freq": 1})
                  for t in terms}}}}


def test_shard_statistics_request():
    fake = Fake({("POST", "/code/_termvectors"): _tv_answer})
    got = shard_statistics(_cluster(fake), "code", "text", ["func", "unseen", "func"], shard=2)
    assert got == TermStats(500, {"func": 3, "unseen": 0}, "shard:2")
    (_, _, body, params), = fake.calls
    assert body["doc"] == {"text": ["func", "unseen"]}
    assert body["per_field_analyzer"] == {"text": "keyword"}
    assert body["term_statistics"] and body["field_statistics"]
    assert params == {"preference": "_shards:2", "realtime": "false"}


def test_shard_statistics_batches(monkeypatch):
    monkeypatch.setattr(stats_mod, "LOOKUP_BATCH", 2)
    fake = Fake({("POST", "/code/_termvectors"): _tv_answer})
    got = shard_statistics(_cluster(fake), "code", "text", ["a", "b", "c"])
    assert [c[2]["doc"]["text"] for c in fake.calls] == [["a", "b"], ["c"]]
    assert got.df == {"a": 3, "b": 3, "c": 3}


def test_shard_statistics_of_no_term_still_reads_n():
    fake = Fake({("POST", "/code/_termvectors"): _tv_answer})
    assert shard_statistics(_cluster(fake), "code", "text", []).doc_count == 500


def _filters_answer(body, params):
    filters = body.get("aggs", {}).get("df", {}).get("filters", {}).get("filters", [])
    if len(filters) > 3:
        raise ClusterError("too_many_buckets_exception: Trying to create too many buckets",
                           status=400)
    return {"hits": {"total": {"value": 900, "relation": "eq"}},
            "aggregations": {"df": {"buckets": [
                {"doc_count": len(f["term"]["text"])} for f in filters]}}}


def test_index_statistics_request_and_bucket_limit():
    fake = Fake({("POST", "/code/_search"): _filters_answer})
    terms = ["a", "bb", "ccc", "dddd", "eeeee"]
    got = index_statistics(_cluster(fake), "code", "text", terms, batch=4)
    assert got == TermStats(900, {t: len(t) for t in terms}, "index")
    first = fake.calls[0][2]
    assert first["size"] == 0 and first["track_total_hits"] is True
    assert first["query"] == {"exists": {"field": "text"}}
    sent = [len(c[2]["aggs"]["df"]["filters"]["filters"]) for c in fake.calls]
    assert sent == [4, 2, 2, 1]  # refused at 4 buckets, then halved


def test_index_statistics_other_errors_propagate():
    def boom(body, params):
        raise ClusterError("search_phase_execution_exception", status=400)
    with pytest.raises(ClusterError, match="search_phase"):
        index_statistics(_cluster(Fake({("POST", "/code/_search"): boom})), "code", "text",
                         ["a"])


# --- the index, as read privileges see it -------------------------------------------------


def _describable(similarity: dict[str, str] | None = None, field_sim: str | None = None,
                 shards: str = "1") -> dict[tuple[str, str], Any]:
    settings = {"index.number_of_shards": shards, "index.uuid": "u"}
    for k, v in (similarity or {}).items():
        settings[f"index.similarity.default.{k}"] = v
    text: dict[str, Any] = {"type": "text", **({"similarity": field_sim} if field_sim else {})}
    return {
        ("GET", "/code/_settings/index.uuid"): {"code": {"settings": {"index": {"uuid": "u"}}}},
        ("GET", "/_cat/indices/code"): [{"index": "code", "status": "open"}],
        ("GET", "/code/_settings"): {"code": {"settings": settings}},
        ("GET", "/code/_mapping"): {"code": {"mappings": {"properties": {"text": text}}}},
    }


def test_inspect_builtin_bm25():
    target = inspect(_cluster(Fake(_describable(shards="3"))), "code")
    assert target == Target("code", "text", 3, "built-in default similarity (BM25)", True)


def test_inspect_refuses_an_index_that_already_has_qlog():
    fake = Fake(_describable({"type": "qlog_bm25", "q": "0.3"}))
    with pytest.raises(ConflictError, match="on top of it"):
        inspect(_cluster(fake), "code")


def test_inspect_refuses_a_field_with_its_own_similarity():
    with pytest.raises(ConflictError, match="its own similarity 'boolean'"):
        inspect(_cluster(Fake(_describable(field_sim="boolean"))), "code")
    assert inspect(_cluster(Fake(_describable(field_sim="BM25"))), "code").field == "text"


def _forbidden(body, params):
    raise ClusterError("security_exception: no permissions for [indices:monitor/settings/get]",
                       status=403)


def test_inspect_with_read_privileges_only():
    fake = Fake({
        ("GET", "/code/_settings/index.uuid"): _forbidden,
        ("GET", "/code/_field_caps"): {"fields": {
            "text": {"text": {"type": "text"}}, "text.raw": {"keyword": {"type": "keyword"}},
            "lang": {"keyword": {"type": "keyword"}}}},
        ("POST", "/code/_search"): {"_shards": {"total": 2}, "hits": {"hits": []}},
    })
    target = inspect(_cluster(fake), "code")
    assert target.field == "text" and target.shards == 2 and not target.checked
    assert "assumed" in target.similarity
    with pytest.raises(UsageError, match="not analysed text"):
        inspect(_cluster(fake), "code", "lang")


def test_inspect_names_the_field_caps_step_the_security_plugin_dropped():
    fake = Fake({("GET", "/code/_settings/index.uuid"): _forbidden,
                 ("GET", "/code/_field_caps"): {"indices": [], "fields": {}}})
    with pytest.raises(ClusterError, match=r"field_caps\[index\]") as info:
        inspect(_cluster(fake), "code")
    assert info.value.exit_code == 4


def test_inspect_does_not_hide_bad_credentials():
    def unauthorised(body, params):
        raise ClusterError("security_exception: missing authentication", status=401)
    fake = Fake({("GET", "/code/_settings/index.uuid"): unauthorised})
    with pytest.raises(ClusterError) as info:
        inspect(_cluster(fake), "code")
    assert info.value.exit_code == 4


# --- the builder --------------------------------------------------------------------------


def _analyze_answer(body, params):
    return {"tokens": [{"token": t} for t in body["text"].lower().split()]}


def test_builder_single_shard_uses_shard_statistics_and_plain_search():
    fake = Fake({("POST", "/code/_analyze"): _analyze_answer,
                 ("POST", "/code/_termvectors"): _tv_answer,
                 ("POST", "/code/_search"): {"hits": {"hits": [{"_id": "d1", "_score": 2.0}]}}})
    qt = QueryTime(_cluster(fake), Target("code", "text", 1, "", True), 0.3)
    built = qt.build("func Func unseen")
    assert built.scope == "shard:0" and built.search_type is None
    assert built.tokens == {"func": 2, "unseen": 1}
    assert built.boosts == {"func": 2 * idf_ratio(0.3, 500, 3), "unseen": 1.0}
    assert qt.search(built, 5)[0]["_id"] == "d1"
    _, _, body, params = fake.calls[-1]
    assert params is None and body["size"] == 5 and body["query"] == built.query
    qt.build("func")  # cached: no second statistics request
    assert sum(c[1].endswith("_termvectors") for c in fake.calls) == 1


def test_builder_several_shards_uses_index_statistics_and_dfs():
    fake = Fake({("POST", "/code/_analyze"): _analyze_answer,
                 ("POST", "/code/_search"): _filters_answer})
    qt = QueryTime(_cluster(fake), Target("code", "text", 3, "", True), 0.3)
    built = qt.build("a bb")
    assert built.scope == "index" and built.search_type == DFS
    assert built.params() == {"search_type": DFS}
    assert built.statistics.doc_count == 900


def test_builder_falls_back_to_term_vectors_when_analyze_is_forbidden():
    def tv(body, params):
        if "per_field_analyzer" in body:
            return _tv_answer(body, params)
        return {"term_vectors": {"text": {"terms": {"func": {"term_freq": 2}}}}}
    fake = Fake({("POST", "/code/_analyze"): _forbidden, ("POST", "/code/_termvectors"): tv})
    qt = QueryTime(_cluster(fake), Target("code", "text", 1, "", False), 0.6)
    assert qt.build("func func").tokens == {"func": 2}
    assert qt.build("func").tokens == {"func": 2}
    assert sum(c[1].endswith("_analyze") for c in fake.calls) == 1  # not asked again


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"stats": "global"}, "stats must be"), ({"shard": 3}, "shard must be"),
])
def test_builder_refuses_bad_options(kwargs, message):
    with pytest.raises(UsageError, match=message):
        QueryTime(_cluster(Fake({})), Target("code", "text", 3, "", True), 0.3, **kwargs)


def test_builder_falls_back_to_index_statistics_without_term_vectors():
    def no_tv(body, params):
        raise ClusterError("no handler found for uri [/code/_termvectors] and method [POST]",
                           status=400)
    fake = Fake({("POST", "/code/_analyze"): _analyze_answer,
                 ("POST", "/code/_termvectors"): no_tv,
                 ("POST", "/code/_search"): _filters_answer})
    qt = QueryTime(_cluster(fake), Target("code", "text", 1, "", False), 0.3)
    built = qt.build("a bb")
    assert built.scope == "index" and built.search_type is None  # one shard: no dfs needed
    assert built.statistics.df == {"a": 1, "bb": 2}
