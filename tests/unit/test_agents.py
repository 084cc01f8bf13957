"""The retrieval core for agents without a cluster: how an index's ranking is decided, the
budget walk (the very prefix Recall@budget-tokens scores), paging, the requests sent, and bad
arguments refused in one line before any request."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from qidf_ctl.agents import Retrieval, decide
from qidf_ctl.agents import ranking as ranking_mod
from qidf_ctl.agents import retrieval as retrieval_mod
from qidf_ctl.errors import NotFoundError, QidfError, UsageError
from qidf_ctl.evaluation.metrics import budget_prefix, recall_at_token_budget
from qidf_ctl.evaluation.queries import term_query
from qidf_ctl.evaluation.tokens import counter

from .test_querytime import Fake, _analyze_answer, _cluster, _describable, _forbidden, _tv_answer

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"]


def _corpus(n: int = 40, seed: int = 3) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"d{i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))))
            for i in range(n)]


def _search_answer(docs: list[tuple[str, str]], extra: dict | None = None):
    def answer(body, params):
        if "ids" in body["query"]:
            wanted = set(body["query"]["ids"]["values"])
            return {"hits": {"hits": [{"_id": d, "_score": 1.0, "_source": {"text": t}}
                                      for d, t in docs if d in wanted]}}
        start, size = body.get("from", 0), body["size"]
        return {"hits": {"hits": [
            {"_id": d, "_score": 100.0 - i, "_source": {"text": t, **(extra or {})}}
            for i, (d, t) in enumerate(docs) if start <= i < start + size]}}
    return answer


def _fake(docs=None, similarity=None, shards="1", mapping_meta=None, extra=None) -> Fake:
    answers = {**_describable(similarity, shards=shards),
               ("POST", "/code/_analyze"): _analyze_answer,
               ("POST", "/code/_termvectors"): _tv_answer,
               ("POST", "/code/_search"): _search_answer(docs or _corpus(), extra)}
    if mapping_meta is not None:
        answers[("GET", "/code/_mapping")] = {"code": {"mappings": {
            "_meta": mapping_meta, "properties": {"text": {"type": "text"}}}}}
    return Fake(answers)


def _retrieval(fake: Fake, **options) -> Retrieval:
    return Retrieval.connect(_cluster(fake), "code", counter_name="regex",
                             **({"q": 0.3} | options))


# --- the ranking --------------------------------------------------------------------------


def test_builtin_bm25_with_a_given_q_ranks_at_query_time():
    ranking, builder = decide(_cluster(_fake()), "code", q=0.3)
    assert (ranking.method, ranking.q, ranking.q_source) == ("query-time", 0.3, "given")
    assert ranking.checked and ranking.field == "text" and builder.builders["text"].q == 0.3
    assert "q = 0.3 was given" in ranking.reason


def test_auto_calls_the_predictor_and_says_why(monkeypatch):
    seen = []

    def predicted(cluster, index, fields, queries):
        seen.append((index, *fields, queries))
        return {f: (0.6, "most sampled documents look like code") for f in fields}

    monkeypatch.setattr(ranking_mod, "predicted_qs", predicted)
    ranking, _ = decide(_cluster(_fake()), "code", q=None)
    assert seen == [("code", "text", None)]
    assert (ranking.q, ranking.q_source) == (0.6, "auto")
    assert "look like code" in ranking.reason


def test_the_settings_are_read_without_the_monitor_api():
    fake = _fake()
    decide(_cluster(fake), "code", q=0.3)
    assert not any(path.startswith("/_cat") for _, path, _, _ in fake.calls)


def test_installed_qlog_ranks_with_its_own_q_and_the_record():
    meta = {"qidf": {"previous": {}, "installed": {
        "q": 0.3, "k1": 1.2, "b": 0.75, "form": "lucene", "mode": "plugin",
        "by": "qidf 0.2.0", "at": "2026-12-01T10:00:00+00:00",
        "prediction": {"predictor": "qidf-content", "reason": "the queries look like code"}}}}
    fake = _fake(similarity={"type": "qlog_bm25", "q": "0.3"}, mapping_meta=meta)
    ranking, _ = decide(_cluster(fake), "code", q=0.7)
    assert (ranking.method, ranking.q, ranking.q_source) == ("installed", 0.3, "index settings")
    assert "by qidf 0.2.0 at 2026-12-01" in ranking.reason
    assert "qidf-content: the queries look like code" in ranking.reason
    assert "(0.7) is not used" in ranking.reason


def test_a_record_that_disagrees_is_in_the_reason():
    meta = {"qidf": {"previous": {}, "installed": {"q": 0.5, "k1": 1.2, "b": 0.75,
                                                   "form": "lucene", "mode": "plugin"}}}
    fake = _fake(similarity={"type": "qlog_bm25", "q": "0.3"}, mapping_meta=meta)
    ranking, _ = decide(_cluster(fake), "code")
    assert "warning: _meta.qidf says q-log q=0.5" in ranking.reason


def test_another_similarity_ranks_as_it_is():
    ranking, _ = decide(_cluster(_fake(similarity={"type": "LMDirichlet"})), "code", q=0.3)
    assert ranking.method == "installed" and ranking.q is None
    assert "not added on top" in ranking.reason


def test_unreadable_settings_assume_bm25_and_say_so():
    fake = _fake()
    fake.answers[("GET", "/code/_settings/index.uuid")] = _forbidden
    fake.answers[("GET", "/code/_field_caps")] = {"fields": {"text": {"text": {}}}}
    fake.answers[("POST", "/code/_search")] = {"_shards": {"total": 1}, "hits": {"hits": []}}
    ranking, _ = decide(_cluster(fake), "code", q=0.3)
    assert ranking.method == "query-time" and not ranking.checked
    assert "built-in BM25 is assumed" in ranking.reason
    ranking, _ = decide(_cluster(fake), "code", q=0.3, ranking="installed")
    assert ranking.method == "installed" and ranking.q is None and not ranking.checked


def test_bad_ranking_choice():
    with pytest.raises(UsageError, match="ranking must be one of"):
        decide(_cluster(_fake()), "code", q=0.3, ranking="query-time")


# --- the budget walk ----------------------------------------------------------------------


def test_budget_prefix_stops_at_the_first_overflow():
    assert budget_prefix([3, 4, 5], 7) == 2
    assert budget_prefix([3, 4, 5], 6) == 1
    assert budget_prefix([8, 1], 7) == 0  # nothing smaller is skipped ahead to
    assert budget_prefix([], 7) == 0
    assert budget_prefix(iter([1, 1, 10**9]), 2) == 2


def test_search_hands_exactly_the_prefix_recall_scores():
    docs = _corpus(60)
    count = counter("regex")
    lengths = {d: count(t) for d, t in docs}
    for budget in (1, 17, 60, 200, 10_000):
        result = _retrieval(_fake(docs)).search("alpha beta", budget_tokens=budget,
                                                max_hits=1000)
        run = {"q": [(d, 0.0) for d, _ in docs]}
        relevant = {d for d, _ in docs[::7]}
        qrels = {"q": dict.fromkeys(relevant, 1)}
        recall = recall_at_token_budget(run, qrels, lengths, budget)["q"]
        got = {h.id for h in result.hits}
        assert len(got & relevant) / len(relevant) == recall
        assert result.used_tokens == sum(h.tokens for h in result.hits) <= budget
        assert [h.tokens for h in result.hits] == [lengths[h.id] for h in result.hits]


def test_stopped_says_why(monkeypatch):
    docs = [(f"d{i}", "alpha " * 10) for i in range(5)]  # 10 tokens each
    r = _retrieval(_fake(docs))
    by_budget = r.search("alpha", budget_tokens=25)
    assert [h.rank for h in by_budget.hits] == [1, 2]
    assert (by_budget.stopped, by_budget.next_hit_tokens) == ("budget", 10)
    assert r.search("alpha", budget_tokens=1000, max_hits=3).stopped == "max_results"
    assert r.search("alpha", budget_tokens=1000).stopped == "no more hits"


def test_pages_until_the_budget_is_passed(monkeypatch):
    monkeypatch.setattr(retrieval_mod, "PAGE", 3)
    docs = [(f"d{i}", "alpha " * 10) for i in range(20)]
    fake = _fake(docs)
    r = _retrieval(fake)
    before = len(fake.calls)
    result = r.search("alpha", budget_tokens=65, max_hits=100)
    assert len(result.hits) == 6 and result.stopped == "budget"
    pages = [(b["from"], b["size"]) for _, p, b, _ in fake.calls[before:]
             if p == "/code/_search"]
    # 3 hits of 10 tokens, then as many as 35 tokens left hold at 10 each, plus a quarter
    assert pages == [(0, 3), (3, 5)]
    assert retrieval_mod._next_page(1000, 7950, 50, 2) == 398
    assert retrieval_mod._next_page(7, 7950, 50, 2) == 7
    assert retrieval_mod._next_page(5000, 10**6, 1, 1) == retrieval_mod.MAX_PAGE


def test_the_query_time_request_is_the_builders_and_installed_is_the_term_query():
    fake = _fake()
    r = _retrieval(fake)
    r.search("Alpha alpha beta")
    body = [b for _, p, b, _ in fake.calls if p == "/code/_search"][-1]
    assert body["query"] == r.builder.build("alpha alpha beta").query
    installed = _retrieval(_fake(similarity={"type": "qlog_bm25", "q": "0.3"}, shards="3"),
                           q="auto")
    query, params = installed.request("Alpha alpha beta")
    assert query == term_query("text", Counter({"alpha": 2, "beta": 1}))
    assert params == {"search_type": "dfs_query_then_fetch"}


def test_metadata_keeps_short_fields_and_the_framework_view():
    r = _retrieval(_fake([("d0", "alpha")], extra={"path": "src/a.go", "line": 3,
                                                    "blob": "x" * 1000}))
    result = r.search("alpha")
    hit = result.hits[0]
    assert hit.metadata == {"path": "src/a.go", "line": 3}
    meta = result.hit_metadata(hit)
    assert meta["id"] == "d0" and meta["rank"] == 1 and meta["q"] == 0.3
    assert meta["method"] == "query-time" and meta["path"] == "src/a.go"


def test_fetch_reads_through_search_with_an_ids_query():
    fake = _fake([("d0", "alpha beta"), ("d1", "gamma")])
    r = _retrieval(fake)
    doc = r.fetch("d1")
    assert doc["text"] == "gamma" and doc["tokens"] == 1 and doc["source"] == {"text": "gamma"}
    assert fake.calls[-1][2]["query"] == {"ids": {"values": ["d1"]}}
    with pytest.raises(NotFoundError, match="no document with id 'zz'"):
        r.fetch("zz")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"text": ""}, "the query is empty"),
    ({"text": " \n\t"}, "the query is empty"),
    ({"text": 5}, "the query must be text"),
    ({"text": "x" * 200_001}, "characters long"),
    ({"budget_tokens": 0}, "budget_tokens must be in"),
    ({"budget_tokens": 10**12}, "budget_tokens must be in"),
    ({"budget_tokens": True}, "budget_tokens must be a whole number"),
    ({"budget_tokens": 3.5}, "budget_tokens must be a whole number"),
    ({"max_hits": 0}, "max_results must be in"),
    ({"max_hits": 1001}, "max_results must be in"),
    ({"q": 7}, "q must be"),
    ({"q": float("nan")}, "q must be"),
    ({"q": "lots"}, "q must be"),
    ({"q": [0.3]}, "q must be a number"),
])
def test_bad_search_arguments_send_nothing(kwargs, message):
    fake = _fake()
    r = _retrieval(fake)
    before = len(fake.calls)
    args = {"text": "alpha", **kwargs}
    with pytest.raises((QidfError, ValueError), match=message):
        r.search(args.pop("text"), **args)
    assert len(fake.calls) == before


def test_a_per_search_q_on_an_installed_index_is_refused():
    r = _retrieval(_fake(similarity={"type": "qlog_bm25", "q": "0.3"}))
    assert r.search("alpha", q=0.3).q == 0.3  # the same q is fine
    with pytest.raises(UsageError, match="leave q out"):
        r.search("alpha", q=0.5)


@pytest.mark.parametrize("doc_id", ["", 5, "é" * 300])
def test_bad_ids_send_nothing(doc_id):
    fake = _fake()
    r = _retrieval(fake)
    before = len(fake.calls)
    with pytest.raises(UsageError):
        r.fetch(doc_id)
    assert len(fake.calls) == before


def test_unknown_token_counter():
    with pytest.raises(UsageError, match="unknown token counter"):
        Retrieval.connect(_cluster(_fake()), "code", q=0.3, counter_name="words")
