"""``qidf stats`` on the real engine and real Go code, checked against an independent count.

The independent side tokenizes every document with the engine's own analyzer (``_analyze``,
one call per document) and counts with plain Counters; exact mode must match it to the last
count with one shard and with three. The edge index has replicas, custom routing, documents
without the field, empty ones, a second text field, deletions not merged away, and an alias.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from qidf_ctl import cli, stats
from qidf_ctl import predictors as predict
from qidf_ctl.cluster import Cluster
from qidf_ctl.errors import ClusterError, QidfError
from qidf_ctl.evaluation import indexing
from qidf_ctl.stats import draw

pytestmark = pytest.mark.integration

ONE, THREE = "qidf-stats-it-1", "qidf-stats-it-3"
EDGE, ALIAS, EMPTY = "qidf-stats-it-edge", "qidf-stats-it-alias", "qidf-stats-it-empty"
EDGE_DOCS, DELETE_EVERY, ROUTE_EVERY, TITLE_EVERY = 3000, 20, 7, 10
NO_FIELD, EMPTY_TEXT, PUNCTUATION = 40, 15, 5


def _analyze(cluster: Cluster, index: str, field: str, texts: list[str]) -> list[list[str]]:
    def tokens(text: str) -> list[str]:
        resp = cluster.request("POST", f"/{index}/_analyze", {"field": field, "text": text})
        return [t["token"] for t in resp["tokens"]]

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(tokens, texts))


def _label(df: int) -> str:
    if df <= 2:
        return str(df)
    high = 10
    while df > high:
        high *= 10
    return f"{3 if high == 10 else high // 10 + 1}-{high}"


def independent(live: Iterable[list[str]], deleted: Iterable[list[str]] = ()) -> dict[str, Any]:
    """Every number exact mode reports, from token lists, with Counters only."""
    docs = [Counter(tokens) for tokens in live if tokens]
    df = Counter(term for d in docs for term in d)
    ttf: Counter[str] = Counter()
    for d in docs:
        ttf.update(d)
    total = sum(ttf.values())
    hapax = {t for t, n in df.items() if n == 1}
    histogram: dict[str, list[int]] = {}
    for term, n in df.items():
        row = histogram.setdefault(_label(n), [0, 0])
        row[0] += 1
        row[1] += ttf[term]
    all_df = df + Counter(t for tokens in deleted for t in set(tokens))
    engine_hapax = {t for t in hapax if all_df[t] == 1}

    def share(d: Counter[str], terms: set[str]) -> float:
        return sum(c for t, c in d.items() if t in terms) / sum(d.values())

    return {
        "documents": len(docs), "vocabulary": len(df), "total_tokens": total,
        "histogram": {k: tuple(v) for k, v in histogram.items()},
        "densities": {
            "tokens": sum(ttf[t] for t in hapax) / total, "vocab": len(hapax) / len(df),
            "types_per_token": len(hapax) / total,
            "doc_mean": math.fsum(share(d, hapax) for d in docs) / len(docs)},
        "engine_tokens": sum(ttf[t] for t in engine_hapax) / total,
        "engine_doc_mean": math.fsum(share(d, engine_hapax) for d in docs) / len(docs),
    }


def assert_matches(f: stats.FieldStats, expected: dict[str, Any]) -> None:
    assert (f.documents, f.vocabulary, f.total_tokens) == (
        expected["documents"], expected["vocabulary"], expected["total_tokens"])
    got = {b.label: (b.terms, b.tokens) for b in f.df_histogram if b.terms}
    assert got == expected["histogram"]
    for name, value in expected["densities"].items():
        assert f.densities[name] == pytest.approx(value, rel=1e-12, abs=0), name


# --- the Go corpus, 1 and 3 shards -----------------------------------------------------------

@pytest.fixture(scope="module")
def go_indices(cluster, go_task):
    for name, shards in ((ONE, 1), (THREE, 3)):
        indexing.create_index(cluster, name, shards=shards)
        assert indexing.bulk_index(cluster, name, go_task.corpus) == len(go_task.corpus)
    yield
    for name in (ONE, THREE):
        cluster.request("DELETE", f"/{name}", None, {"ignore_unavailable": "true"})


@pytest.fixture(scope="module")
def go_tokens(cluster, go_indices, go_task) -> dict[str, list[str]]:
    ids = sorted(go_task.corpus)
    return dict(zip(ids, _analyze(cluster, ONE, "text", [go_task.corpus[i] for i in ids]),
                    strict=True))


@pytest.fixture(scope="module")
def go_expected(go_tokens) -> dict[str, Any]:
    return independent(go_tokens.values())


@pytest.fixture(scope="module")
def go_exact(cluster, go_indices) -> stats.FieldStats:
    return stats.index_stats(cluster, ONE).field("text")


@pytest.mark.parametrize("index", [ONE, THREE])
def test_exact_equals_analyze_to_the_last_count(cluster, index, go_expected, go_task):
    result = stats.index_stats(cluster, index)
    f = result.field("text")
    assert result.mode == "exact" and result.shards == (1 if index == ONE else 3)
    assert f.documents >= 5000 and result.live_documents == len(go_task.corpus)
    assert_matches(f, go_expected)
    assert f.engine is not None
    assert (f.engine.doc_count, f.engine.sum_ttf) == (f.documents, f.total_tokens)
    assert f.warnings == [] and f.engine_densities is None


def test_sampled_intervals_cover_in_at_least_90_of_100_samples(go_exact):
    population = go_exact.counts
    assert isinstance(population, stats.DocCounts)
    covered: Counter[str] = Counter()
    for seed in range(100):
        design = draw(population, population.tokens, 1000, seed)
        for name, (low, high) in design.intervals(seed=seed, resamples=1000).items():
            covered[name] += low <= go_exact.densities[name] <= high
    assert min(covered.values()) >= 90, covered


def test_sampled_mode_on_three_shards(cluster, go_exact):
    f = stats.index_stats(cluster, THREE, sample=2000, seed=11).field("text")
    assert (f.mode, f.sampled_documents, f.take_all) == ("sampled", 2000, 400)
    assert (f.documents, f.total_tokens) == (go_exact.documents, go_exact.total_tokens)
    for name, (low, high) in f.intervals.items():
        assert low <= f.densities[name] <= high
        assert abs(f.densities[name] - go_exact.densities[name]) <= 4 * (high - low) / 2, name
    assert abs(f.vocabulary - go_exact.vocabulary) / go_exact.vocabulary < 0.05


def test_paper_predictor_uses_the_token_share(cluster, go_exact):
    p = predict.predict_for_index(cluster, ONE, predictor="paper")
    h = p.evidence["tokens"]["value"]
    assert h == go_exact.densities["tokens"] and p.evidence["tokens"]["name"] == "hapax token share"
    assert p.q == round(min(1.0, max(0.05, 1 - 7.28 * h)), 2)
    assert p.reason.startswith(f"hapax token share {h:.3f} -> q {p.q:.2f}")
    assert json.loads(json.dumps(p.record()))["prediction"]["statistics"]["mode"] == "exact"


def test_default_predictor_reads_the_raw_text(cluster, go_exact):
    """Go docstrings are text: without a query sample qidf-content keeps BM25 and says why."""
    p = predict.predict_for_index(cluster, ONE)
    assert p.predictor == "qidf-content" and p.q == 1.0 and p.ambiguous
    shape = p.statistics["source_shape"]
    assert shape["texts"] == 1000 and shape["code_like_share"] < 0.1
    assert p.evidence["code_like_documents"]["value"] == shape["code_like_share"]
    assert go_exact.hapax_terms is not None and 0 < go_exact.hapax_terms.hapax_glued_share < 1


# --- edge cases on one index -------------------------------------------------------------------

def _bulk(cluster: Cluster, actions: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> None:
    lines = []
    for action, source in actions:
        lines.append(json.dumps(action))
        if source is not None:
            lines.append(json.dumps(source))
    resp = cluster.request("POST", "/_bulk", "\n".join(lines) + "\n")
    assert not resp["errors"], next(i for i in resp["items"] if "error" in next(
        iter(i.values())))


@pytest.fixture(scope="module")
def edge(cluster, go_task, go_tokens):
    """Returns (live sources, deleted sources); ids routed with r0..r4 every 7th."""
    for name in (EDGE, EMPTY):
        cluster.request("DELETE", f"/{name}", None, {"ignore_unavailable": "true"})
    cluster.request("PUT", f"/{EDGE}", {
        "settings": {"index": {"number_of_shards": 3, "number_of_replicas": 1,
                               "refresh_interval": "-1"}},
        "mappings": {"properties": {"text": {"type": "text", "analyzer": "standard"},
                                    "title": {"type": "text"}, "kw": {"type": "keyword"}}}})
    cluster.request("PUT", f"/{EMPTY}", {"mappings": {"properties": {"text": {"type": "text"}}}})
    sources: dict[str, dict[str, Any]] = {}
    routing: dict[str, str] = {}
    for i, doc_id in enumerate(sorted(go_task.corpus)[:EDGE_DOCS]):
        text = go_task.corpus[doc_id]
        sources[doc_id] = {"text": text, **({"title": " ".join(text.split()[:3])}
                                            if i % TITLE_EVERY == 0 else {})}
        if i % ROUTE_EVERY == 0:
            routing[doc_id] = f"r{i % 5}"
    sources.update({f"nofield-{i}": {"kw": "x"} for i in range(NO_FIELD)})
    sources.update({f"empty-{i}": {"text": ""} for i in range(EMPTY_TEXT)})
    sources.update({f"punct-{i}": {"text": " ,;: -- "} for i in range(PUNCTUATION)})

    def meta(doc_id: str) -> dict[str, Any]:
        return {"_index": EDGE, "_id": doc_id,
                **({"routing": routing[doc_id]} if doc_id in routing else {})}

    _bulk(cluster, [({"index": meta(i)}, s) for i, s in sources.items()])
    cluster.request("POST", f"/{EDGE}/_refresh")
    doomed = sorted(go_task.corpus)[:EDGE_DOCS:DELETE_EVERY]
    _bulk(cluster, [({"delete": meta(i)}, None) for i in doomed])
    cluster.request("POST", f"/{EDGE}/_refresh")
    cluster.request("POST", "/_aliases", {"actions": [{"add": {"index": EDGE, "alias": ALIAS}}]})
    deleted = {i: sources.pop(i) for i in doomed}
    yield sources, deleted
    for name in (EDGE, EMPTY):
        cluster.request("DELETE", f"/{name}", None, {"ignore_unavailable": "true"})


def test_edge_index_exact_through_alias(cluster, edge, go_tokens):
    live, deleted = edge
    result = stats.index_stats(cluster, ALIAS, field="text")
    f = result.field("text")
    expected = independent([go_tokens.get(i, []) for i in live],
                           [go_tokens[i] for i in deleted])
    assert (result.name, result.index, result.shards) == (ALIAS, EDGE, 3)
    assert result.live_documents == len(live)
    assert_matches(f, expected)
    assert f.documents_without_tokens == NO_FIELD + EMPTY_TEXT + PUNCTUATION
    # Lucene counts a tombstone per delete besides the deleted version itself.
    assert result.deleted_documents >= len(deleted)
    # No merge ran (no refresh besides ours): Lucene's statistics still hold every deleted one.
    assert f.engine is not None and f.deleted_in_statistics == len(deleted)
    assert f.engine.doc_count == f.documents + len(deleted)
    assert f.engine_densities is not None
    assert f.engine_densities["tokens"] == pytest.approx(expected["engine_tokens"], rel=1e-12)
    assert f.engine_densities["doc_mean"] == pytest.approx(expected["engine_doc_mean"],
                                                           rel=1e-12)
    assert f.engine_densities["tokens"] < f.densities["tokens"]


def test_edge_index_every_text_field_and_a_sample(cluster, edge):
    result = stats.index_stats(cluster, EDGE, sample=600, seed=2)
    assert [f.field for f in result.fields] == ["text", "title"]
    exact = stats.index_stats(cluster, EDGE, field="text").field("text")
    f = result.field("text")
    assert f.sampled_documents == 600 and f.engine_densities is not None
    for name, (low, high) in f.intervals.items():
        assert abs(f.densities[name] - exact.densities[name]) <= 4 * (high - low) / 2 + 1e-9
    assert result.field("title").documents > 0
    with pytest.raises(QidfError, match="several text fields"):
        predict.predict_for_index(cluster, EDGE)


def test_a_sample_of_everything_equals_exact_on_the_engine(cluster, edge):
    exact = stats.index_stats(cluster, EDGE, field="title").field("title")
    whole = stats.index_stats(cluster, EDGE, field="title", sample=10_000).field("title")
    assert whole.densities == pytest.approx(exact.densities, rel=1e-9)
    assert whole.vocabulary == pytest.approx(exact.vocabulary, rel=1e-9)


@pytest.mark.parametrize("argv, message, code", [
    (["stats", "qidf-stats-it-missing"], "index 'qidf-stats-it-missing' not found", 5),
    (["stats", EDGE, "--field", "kw"], "field 'kw' of 'qidf-stats-it-edge' is a keyword field",
     2),
    (["stats", EMPTY], "index 'qidf-stats-it-empty' has no documents", 1),
    (["predict", EDGE, "--field", "kw"], "is a keyword field", 2),
])
def test_bad_input_is_one_line(argv, message, code, engine_url, edge, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["qidf", *argv, "--url", engine_url])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    assert exit_info.value.code == code and captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


def test_predict_on_several_text_fields_is_one_table(engine_url, edge, capsys, monkeypatch):
    """An index of two text fields, no --field: each field's q (one table), then what one q
    for the whole index would be; --json holds both predictions and that choice."""
    monkeypatch.setattr(sys, "argv", ["qidf", "predict", EDGE, "--url", engine_url])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    assert "q for each text field" in out and "│ text " in out and "│ title " in out
    assert "one q for the index" in " ".join(out.split())
    monkeypatch.setattr(sys, "argv", ["qidf", "predict", EDGE, "--json", "--url", engine_url])
    with pytest.raises(SystemExit):
        cli.main()
    payload = json.loads(capsys.readouterr().out)
    assert [p["field"] for p in payload["fields"]] == ["text", "title"]
    assert payload["default"]["field"] in ("text", "title")


def test_cli_json_is_one_object(engine_url, go_indices, go_exact, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["qidf", "stats", ONE, "--json", "--url", engine_url])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    payload = json.loads(capsys.readouterr().out)
    assert exit_info.value.code == 0
    assert payload["fields"][0]["densities"]["tokens"] == go_exact.densities["tokens"]
    assert payload["predictor"] == predict.describe()


def test_missing_index_raises_cluster_error(cluster):
    with pytest.raises(ClusterError, match="not found"):
        stats.index_stats(cluster, "qidf-stats-it-missing")
