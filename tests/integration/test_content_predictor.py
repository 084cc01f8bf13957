"""qidf-content on the real engine and real Go: docstrings (text) searched with code or with
text, Go functions (code), the query sample through ``predict --queries`` and ``apply --q
auto --queries``, and the predictor's own added cost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from qidf_ctl import install
from qidf_ctl import predictors as predict
from qidf_ctl.demo import shipped_corpus
from qidf_ctl.evaluation import indexing
from qidf_ctl.evaluation.files import write_queries
from qidf_ctl.evaluation.pairs import load_pairs
from qidf_ctl.predictors import content
from qidf_ctl.stats.query_sample import from_texts

pytestmark = pytest.mark.integration

CODE_INDEX = "qidf-it-go-code"
FILES_INDEX = "qidf-it-whole-files"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def code_index(cluster) -> str:
    """3,000 Go functions (the shipped corpus's code side): a code field."""
    pairs = load_pairs(shipped_corpus("go"))[:3000]
    indexing.ensure_index(cluster, CODE_INDEX, {p.id: p.code for p in pairs})
    return CODE_INDEX


def test_docstrings_need_a_query_sample(cluster, parity_index, go_task):
    """Go's docstrings are text: without a sample BM25 stays (ambiguous); a sample of code
    queries gives q_q, one of text keeps BM25."""
    without = predict.predict_for_index(cluster, parity_index)
    assert without.q == 1.0 and without.ambiguous and "--queries FILE" in without.reason
    code_queries = from_texts(go_task.queries, "code")
    with_code = predict.predict_for_index(cluster, parity_index, queries=code_queries)
    assert with_code.q == content.Q_CODE_QUERIES and not with_code.ambiguous
    assert with_code.evidence["code_like_queries"]["value"] > content.CODE_QUERIES_MIN
    docstrings = dict(list(go_task.corpus.items())[:300])  # text searched with text
    with_text = predict.predict_for_index(cluster, parity_index,
                                          queries=from_texts(docstrings, "docstrings"))
    assert with_text.q == 1.0 and not with_text.ambiguous
    assert "text searched with text" in with_text.reason


def test_code_needs_no_query_sample(cluster, code_index):
    p = predict.predict_for_index(cluster, code_index)
    assert p.q == content.Q_CODE_CORPUS and not p.ambiguous
    assert p.evidence["code_like_documents"]["value"] >= content.CODE_CORPUS_MIN


def test_whole_files_get_the_milder_level(cluster):
    """This project's own modules, one document per whole file (real code, a few hundred
    tokens and more each): q Q_CODE_FILES, where Go's functions get Q_CODE_CORPUS."""
    files = {}
    for folder, _, names in os.walk(os.path.join(ROOT, "qidf_ctl")):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as fh:
                    files[os.path.relpath(path, ROOT)] = fh.read()
    indexing.ensure_index(cluster, FILES_INDEX, files)
    p = predict.predict_for_index(cluster, FILES_INDEX)
    assert p.statistics["avg_field_length"] >= content.WHOLE_FILE_TOKENS_MIN
    assert p.q == content.Q_CODE_FILES and not p.ambiguous and "whole files" in p.reason


def test_the_raw_text_sample_costs_one_search(cluster, parity_index):
    from qidf_ctl.stats.read import has_field_query
    from qidf_ctl.stats.source_sample import source_texts

    started = time.monotonic()
    texts = source_texts(cluster, parity_index, "text", has_field_query(["text"]))
    assert len(texts) == 1000 and time.monotonic() - started < 10
    assert texts == source_texts(cluster, parity_index, "text", has_field_query(["text"]))


def _qidf(*args: str, url: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", *args, "--json"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QIDF_URL": url})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_cli_query_sample_reaches_the_record(cluster, parity_index, go_task, engine_url,
                                             tmp_path):
    path = tmp_path / "queries.jsonl"
    write_queries(go_task.queries, path)
    predicted = _qidf("predict", parity_index, "--queries", str(path), url=engine_url)
    assert predicted["q"] == content.Q_CODE_QUERIES
    assert predicted["queries"]["queries_in_file"] == len(go_task.queries)
    try:
        _qidf("apply", parity_index, "--q", "auto", "--queries", str(path), "--mode", "script",
              url=engine_url)
        shown = install.show(cluster, parity_index)
        assert shown["params"]["q"] == content.Q_CODE_QUERIES
        recorded = shown["record"]["installed"]["prediction"]
        assert recorded["evidence"]["code_like_queries"] == predicted["evidence"][
            "code_like_queries"]
        assert recorded["queries"]["source"] == str(path)
    finally:
        install.revert(cluster, parity_index)
