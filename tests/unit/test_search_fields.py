"""``qidf search`` on what the index has (issue 35): its own ranking without --q, q-log
rescaling an installed q-log, several text fields each at its own q (multi_match's
best_fields/most_fields), and two rankings side by side with --vs. Against a fake cluster:
the exact query bodies are checked, the engine's scoring by tests/integration."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from qidf_ctl.cluster import Cluster
from qidf_ctl.evaluation.queries import term_query
from qidf_ctl.formula import IdfForm, idf
from qidf_ctl.querytime import compare as cmp
from qidf_ctl.querytime.boosts import idf_ratio
from qidf_ctl.querytime.fields import FieldsQueryTime, combine, parse_field_qs

from .test_cli import run
from .test_querytime import Fake, _cluster

N, DF = 500, 3


def _answers(fields: tuple[str, ...] = ("code", "doc"),
             default: dict[str, Any] | None = None,
             own: dict[str, str] | None = None) -> dict[tuple[str, str], Any]:
    settings = {"index.number_of_shards": "1", "index.uuid": "u"}
    for k, v in (default or {}).items():
        settings[f"index.similarity.default.{k}"] = v
    props = {f: {"type": "text", **({"similarity": own[f]} if own and f in own else {})}
             for f in fields}
    props["path"] = {"type": "keyword"}

    def analyze(body, params):
        return {"tokens": [{"token": t} for t in body["text"].lower().split()]}

    def termvectors(body, params):
        (field, terms), = body["doc"].items()
        return {"term_vectors": {field: {
            "field_statistics": {"doc_count": N, "sum_doc_freq": 1, "sum_ttf": 1},
            "terms": {t: {"term_freq": 1, "doc_freq": DF} for t in terms}}}}

    return {
        ("GET", "/code/_settings/index.uuid"): {"code": {"settings": {"index": {"uuid": "u"}}}},
        ("GET", "/_cat/indices/code"): [{"index": "code", "status": "open"}],
        ("GET", "/code/_settings"): {"code": {"settings": settings}},
        ("GET", "/code/_mapping"): {"code": {"mappings": {"properties": props}}},
        ("POST", "/code/_analyze"): analyze,
        ("POST", "/code/_termvectors"): termvectors,
    }


def _search(order_by_boost: bool = False):
    """Hits d1..d5; with ``order_by_boost``, reversed when the query holds a boost > 1 (so
    two rankings differ)."""
    def answer(body, params):
        ids = ["d1", "d2", "d3", "d4", "d5"]
        if order_by_boost and any(b > 1.0 for b in _boosts(body["query"]).values()):
            ids.reverse()
        return {"hits": {"hits": [{"_id": d, "_score": 10.0 - i,
                                   "_source": {"code": f"code of {d}", "path": f"src/{d}.go"}}
                                  for i, d in enumerate(ids)]}}
    return answer


def _boosts(query: dict[str, Any]) -> dict[str, float]:
    found: dict[str, float] = {}
    text = json.dumps(query)
    data = json.loads(text)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "term" in node:
                (field, spec), = node["term"].items()
                if isinstance(spec, dict):  # a filter's term has no boost
                    found[f"{field}:{spec['value']}"] = spec["boost"]
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(data)
    return found


@pytest.fixture
def engine(monkeypatch):
    def make(**kwargs: Any) -> Fake:
        order = kwargs.pop("order_by_boost", False)
        fake = Fake({**_answers(**kwargs), ("POST", "/code/_search"): _search(order)})
        monkeypatch.setattr(Cluster, "connect",
                            classmethod(lambda cls, settings: _cluster(fake)))
        return fake
    return make


def _sent(fake: Fake) -> list[dict[str, Any]]:
    return [c[2] for c in fake.calls if c[1] == "/code/_search"]


def test_without_q_the_index_ranks_as_it_is(engine, capsys, monkeypatch):
    """BM25 index, one field: the plain term query, no boost rescaled."""
    fake = engine(fields=("code",))
    code, out, err = run(["search", "code", "func Header"], capsys, monkeypatch)
    assert code == 0, err
    assert _sent(fake)[0]["query"] == term_query("code", Counter({"func": 1, "header": 1}))
    assert "field code: built-in default similarity (BM25), as installed" in " ".join(out.split())


def test_on_an_installed_qlog_the_q_rescales_it(engine, capsys, monkeypatch):
    """Installed q-log q=0.7 (plugin): no --q is the plain query; --q 0.3 boosts each term by
    idf_0.3 / idf_0.7 (no exit 6); --vs bm25 by idf_1 / idf_0.7."""
    installed = {"type": "qlog_bm25", "q": "0.7", "k1": "1.2", "b": "0.75", "form": "lucene"}
    fake = engine(fields=("code",), default=installed)
    code, out, err = run(["search", "code", "func"], capsys, monkeypatch)
    assert code == 0, err
    assert _boosts(_sent(fake)[-1]["query"]) == {"code:func": 1.0}
    code, out, err = run(["search", "code", "func", "--q", "0.3", "--vs", "bm25", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    new, ref = _sent(fake)[-2:]
    below = idf(0.7, N, DF, IdfForm.LUCENE)
    assert _boosts(new["query"])["code:func"] == pytest.approx(idf(0.3, N, DF) / below)
    assert _boosts(ref["query"])["code:func"] == pytest.approx(idf(1.0, N, DF) / below)
    data = json.loads(out)
    assert "rescaling the installed q-log BM25 q=0.7" in data["ranking"]
    assert data["vs"]["ranking"] == "BM25"


def test_base_relative_ratio_is_exactly_one_at_the_installed_q():
    for form in IdfForm:
        assert idf_ratio(0.7, N, DF, form, (0.7, form)) == 1.0
    assert idf_ratio(0.3, 10, 9, IdfForm.LUCENE, (0.5, IdfForm.RSJ)) == 1.0  # base scores 0


def test_two_fields_are_one_dis_max_each_at_its_own_q(engine, capsys, monkeypatch):
    fake = engine()
    code, out, err = run(["search", "code", "func Header", "--q", "code=0.3", "--json"],
                         capsys, monkeypatch)
    assert code == 0, err
    query = _sent(fake)[-1]["query"]
    parts = query["dis_max"]["queries"]
    assert query["dis_max"]["tie_breaker"] == 0.0 and len(parts) == 2
    boosts = _boosts(query)
    assert boosts["code:func"] == pytest.approx(idf_ratio(0.3, N, DF))
    assert boosts["doc:func"] == 1.0  # doc ranks as it is: the plain multi_match part
    data = json.loads(out)
    assert data["fields"] == ["code", "doc"] and data["q"] == {"code": 0.3, "doc": 1.0}
    assert data["request"]["body"]["_source"] == ["code", "doc"]
    code, _, _ = run(["search", "code", "func", "--q", "0.5", "--combine", "most_fields"],
                     capsys, monkeypatch)
    assert code == 0
    query = _sent(fake)[-1]["query"]
    assert len(query["bool"]["should"]) == 2
    assert all(b == pytest.approx(idf_ratio(0.5, N, DF)) for b in _boosts(query).values())


def test_one_field_of_several_and_a_filter(engine, capsys, monkeypatch):
    fake = engine()
    code, _, err = run(["search", "code", "func", "--field", "doc", "--q", "0.3",
                        "--filter", '{"term": {"lang": "go"}}'], capsys, monkeypatch)
    assert code == 0, err
    query = _sent(fake)[-1]["query"]
    assert query["bool"]["filter"] == [{"term": {"lang": "go"}}]
    assert list(_boosts(query)) == ["doc:func"]
    run(["search", "code", "func", "--q", "0.3", "--filter", '{"term": {"lang": "go"}}'],
        capsys, monkeypatch)
    query = _sent(fake)[-1]["query"]
    assert query["bool"]["filter"] == [{"term": {"lang": "go"}}]
    assert len(query["bool"]["must"][0]["dis_max"]["queries"]) == 2


def test_vs_shows_both_rankings_and_the_moves(engine, capsys, monkeypatch):
    engine(order_by_boost=True)
    code, out, err = run(["search", "code", "func", "--q", "0.3", "--vs", "bm25", "--size",
                          "3"], capsys, monkeypatch)
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if line[:4].strip().isdigit()]
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert rows[0][1] == "src/d5.go" and rows[0][3] == "+4" and rows[0][4] == "src/d1.go"
    assert "left the top 3: src/d1.go (was 1, now 5)" in " ".join(out.split())
    code, out, _ = run(["search", "code", "func", "--q", "0.3", "--vs", "installed",
                        "--size", "3", "--json"], capsys, monkeypatch)
    moves = json.loads(out)["vs"]["moves"]
    assert [(m["id"], m["was"], m["move"]) for m in moves] == [
        ("d5", 5, "+4"), ("d4", 4, "+2"), ("d3", 3, "=")]


@pytest.mark.parametrize(("argv", "message"), [
    (["--q", "code=abc"], "q must be"),
    (["--q", "code=0.3,doc"], "q must be"),
    (["--vs", "tf-idf"], "--vs takes bm25, installed or a q"),
    (["--combine", "cross_fields"], "--combine must be"),
    (["--tie-breaker", "2"], "--tie-breaker"),
])
def test_bad_input_is_one_line_before_any_request(argv, message, engine, capsys, monkeypatch):
    fake = engine()
    code, out, err = run(["search", "code", "func", *argv], capsys, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err
    assert fake.calls == []


def test_a_q_for_a_field_not_searched_is_one_line(engine, capsys, monkeypatch):
    engine()
    code, _, err = run(["search", "code", "func", "--q", "path=0.3"], capsys, monkeypatch)
    assert code == 2 and "not searched here" in err and err.count("\n") == 1


def test_parse_and_combine():
    assert parse_field_qs("code=0.3, doc=1", ["code", "doc"]) == {"code": 0.3, "doc": 1.0}
    one = {"bool": {"should": []}}
    assert combine([one]) == one
    assert combine([one, one], "most_fields") == {"bool": {"should": [one, one]}}


def test_moves_and_what_left():
    new = cmp.ranked([{"_id": i, "_score": 1.0} for i in ("c", "a", "x")])
    old = cmp.ranked([{"_id": i, "_score": 1.0} for i in ("a", "b", "c")])
    assert [m.move for m in cmp.moves(new, old)] == ["+2", "-1", "new"]
    assert [(m.hit.id, m.hit.rank, m.was) for m in cmp.left(new, old, 3)] == [("b", 2, None)]
    assert cmp.label({"_id": "x", "_source": {"path": "src/a.go"}}) == "src/a.go"
    assert cmp.label({"_id": "x", "_source": {"path": "p" * 200}}) == "x"


def test_fields_query_time_as_a_library(engine):
    fake = engine()
    cluster = Cluster.connect(None)  # type: ignore[arg-type]
    ft = FieldsQueryTime.connect(cluster, "code", None, {"doc": 0.3})
    assert ft.fields == ["code", "doc"] and ft.ranks_as_is("code") and not ft.ranks_as_is("doc")
    built = ft.build("func")
    assert ft.search(built, 2)[0]["_id"] == "d1"
    assert built.as_dict()["q"] == {"code": 1.0, "doc": 0.3}
    assert fake.calls[-1][3] is None  # one shard: no dfs
