"""The decision from judgments on the real engine: ``predict --judgments`` changes nothing,
``apply --q auto --judgments`` installs the q the older queries chose and records the
source, its size and the split (``show``, ``plan``, ``check`` read it), a qidf.toml target's
``judgments`` key decides the same way, and the judged documents' order computed from
per-term scores equals the engine's own at every q."""

from __future__ import annotations

import json

import pytest

from qidf_ctl import install
from qidf_ctl.evaluation import indexing, runs
from qidf_ctl.judgments.decide import analyse
from qidf_ctl.judgments.folder import Judgments, write_folder
from qidf_ctl.judgments.rescore import JudgedOrder
from qidf_ctl.progress import no_bar
from qidf_ctl.querytime import QueryTime
from tests.unit.test_cli import run

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def judged(go_task, tmp_path_factory):
    """The Go task's 300 code queries as a judgments folder: the first 150 choose, the rest
    report."""
    ids = list(go_task.queries)
    found = Judgments(dict(go_task.queries), dict(go_task.qrels), ids[:150], ids[150:],
                      {"source": "test", "origin": "the demo's Go task", "field": "text",
                       "split": {"by": "task order", "older_share": 0.5}})
    folder = tmp_path_factory.mktemp("judged") / "go"
    write_folder(folder, found)
    return folder


def test_predict_decides_from_judgments_and_changes_nothing(cluster, engine_url,
                                                           parity_index, judged, capsys,
                                                           monkeypatch):
    install.revert(cluster, parity_index)
    code, out, err = run(["predict", parity_index, "--judgments", str(judged), "--json",
                          "--url", engine_url], capsys, monkeypatch)
    assert code == 0, err
    decision = json.loads(out)
    assert decision["q"] < 1 and decision["older_queries"] == 150
    assert decision["report"]["queries"] == 150
    assert decision["report"]["chosen_ndcg10"] > decision["report"]["bm25_ndcg10"]
    assert decision["report"]["p_value"] < 0.05
    assert install.read_state(cluster, parity_index).installed.kind != "qlog"


def test_apply_records_the_decision_and_show_plan_check_read_it(
        cluster, engine_url, parity_index, judged, tmp_path, capsys, monkeypatch):
    install.revert(cluster, parity_index)
    try:
        code, out, err = run(["apply", parity_index, "--q", "auto", "--judgments",
                              str(judged), "--json", "--url", engine_url], capsys, monkeypatch)
        assert code == 0, err
        applied = json.loads(out)
        assert applied["changed"] and applied["decision"]["predictor"] == "judgments"
        assert applied["decision"]["judgments"]["queries"] == 300
        assert applied["decision"]["judgments"]["split"]["older_queries"] == 150
        code, out, err = run(["show", parity_index, "--url", engine_url], capsys, monkeypatch)
        assert code == 0 and "from judgments: test" in out and "150 older chose it" in out
        toml = tmp_path / "qidf.toml"
        toml.write_text(f'[[target]]\nindex = "{parity_index}"\nq = "auto"\n'
                        f'predictor = "qidf-content"\njudgments = "{judged}"\n')
        code, out, err = run(["check", "-f", str(toml), "--url", engine_url], capsys,
                             monkeypatch)
        assert code == 0, out + err  # decided from the same judgments: in sync
        install.revert(cluster, parity_index)
        code, out, err = run(["plan", "-f", str(toml), "--url", engine_url], capsys,
                             monkeypatch)
        assert code == 0, err
        assert "q auto (judgments" in out and "will CLOSE it" in out
    finally:
        install.revert(cluster, parity_index)


def test_the_judged_documents_order_from_term_scores_is_the_engines(cluster, parity_index,
                                                                     go_task):
    install.revert(cluster, parity_index)
    qt = QueryTime.connect(cluster, parity_index, 1.0, indexing.FIELD)
    texts = dict(list(go_task.queries.items())[:60])
    terms = analyse(qt, texts, no_bar)
    bm25 = runs.search_run(cluster, parity_index, indexing.FIELD, terms, k=10,
                           queries=qt.queries(terms, 1.0), search_type=None)
    judged = {q: [d for d, _ in bm25[q]] for q in texts}  # what a search page showed
    order = JudgedOrder(cluster, qt, 1.0)
    order.prepare(terms, judged, lambda n: None)
    for q in (0.1, 0.3, 0.7, 1.0, 1.3):
        real = runs.search_run(cluster, parity_index, indexing.FIELD, terms, k=1000,
                               queries=qt.queries(terms, q), search_type=None)
        mine = order.run(list(texts), q)
        same = sum(1 for qid in texts if [d for d, _ in mine[qid]] ==
                   [d for d, _ in real[qid] if d in set(judged[qid])])
        assert same >= len(texts) - 1, (q, same)  # ties within float rounding at most
