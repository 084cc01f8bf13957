"""`qidf apply --q auto` on the real engine and real Go docstrings (a text field: without a
query sample qidf-content decides q = 1).

- A decision of q = 1 leaves an index qidf never changed byte-identical: GET _settings and
  GET _mapping answer the same bytes, the index's metadata versions (which a close, an open
  or a settings update bump) and uuid do not move, no clone, journal, lease or scratch index
  appears; with either strategy and with --dry-run.
- One qidf changed goes back, through the journaled revert, to the settings it had before
  qidf's first apply (both strategies); plan, check and apply -f agree.
- `--queries-are code` stands in for a query sample: q-log installed, the statement recorded
  in _meta.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from qidf_ctl import install
from qidf_ctl import predictors as predict
from qidf_ctl.cluster import Cluster, ConnectionSettings, index_path
from qidf_ctl.desired import Connections, load, make_plan
from qidf_ctl.errors import ClusterError
from qidf_ctl.evaluation import indexing
from qidf_ctl.install import journal as jr
from qidf_ctl.install import lease as leases
from qidf_ctl.install.index_ops import resolves_to
from qidf_ctl.install.state import similarity_of
from qidf_ctl.predictors import content
from qidf_ctl.similarity import Mode, QlogParams
from tests.consistency import leftovers

pytestmark = pytest.mark.integration
NAME = "qidf-it-auto"
DOCS = 1000


def _qidf(*args: str, url: str, code: int = 0) -> dict:
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", *args, "--json"],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "QIDF_URL": url})
    assert proc.returncode == code, proc.stderr
    return json.loads(proc.stdout)


def _raw(url: str, path: str) -> bytes:
    """The engine's answer, byte for byte."""
    with urllib.request.urlopen(url + path, timeout=30) as resp:
        return resp.read()


def _versions(cluster: Cluster, index: str) -> dict:
    """What any close, open, settings or mapping update bumps."""
    meta = cluster.request("GET", f"/_cluster/state/metadata/{index}")["metadata"]["indices"]
    return {k: meta[index][k] for k in ("version", "settings_version", "mapping_version",
                                        "aliases_version", "state")}


def _state_docs(cluster: Cluster, key: str) -> list[str]:
    """qidf's lease and journal documents for ``key`` (none when qidf-state is absent)."""
    found = []
    for doc_id in (leases.lease_id(key), jr.journal_id(key)):
        try:
            if cluster.request("GET", index_path("qidf-state", "_doc", doc_id)).get("found"):
                found.append(doc_id)
        except ClusterError as exc:
            assert exc.status == 404
    return found


@pytest.fixture
def fresh(cluster, go_task):
    """A new 1,000-docstring index per test (a clone swap turns the name into an alias)."""
    def make(name: str = NAME) -> str:
        for index in resolves_to(cluster, name):
            cluster.request("DELETE", index_path(index))
        indexing.create_index(cluster, name, analyzer="standard", shards=1)
        indexing.bulk_index(cluster, name, dict(list(go_task.corpus.items())[:DOCS]))
        return name

    made: list[str] = []
    yield lambda name=NAME: made.append(make(name)) or name
    for name in made:
        for index in resolves_to(cluster, name):
            cluster.request("DELETE", index_path(index))


def _text_run(url: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "QIDF_URL": url})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("strategy", ["close", "clone"])
def test_q1_leaves_an_index_qidf_never_changed_byte_identical(cluster, engine_url, fresh,
                                                              strategy):
    name = fresh()
    expected = predict.predict_for_index(cluster, name)
    assert expected.q == 1.0  # docstrings, no query sample: BM25 stays
    settings, mapping = _raw(engine_url, f"/{name}/_settings"), _raw(engine_url,
                                                                     f"/{name}/_mapping")
    versions = _versions(cluster, name)
    for dry_run in (True, False):
        result = _qidf("apply", name, "--q", "auto", "--strategy", strategy,
                       *(["--dry-run"] if dry_run else []), url=engine_url)
        assert (result["action"], result["changed"], result["dry_run"]) == ("none", False,
                                                                           dry_run)
        assert result["message"].startswith(f"{name}: nothing to do: q auto: ")
        assert result["decision"]["q"] == 1.0
        assert result["decision"]["reason"] == expected.reason
        assert result["decision"]["evidence"] == expected.evidence
        assert _raw(engine_url, f"/{name}/_settings") == settings
        assert _raw(engine_url, f"/{name}/_mapping") == mapping
        assert _versions(cluster, name) == versions  # no close, open or update happened
        assert resolves_to(cluster, name) == [name]  # still the index itself: no clone swap
        assert leftovers(cluster, name) == [] and _state_docs(cluster, name) == []
    if strategy == "close":
        (line,) = _text_run(engine_url, "apply", name, "--q", "auto").splitlines()
        assert line.startswith(f"{name}: nothing to do: q auto: ") and line.endswith(
            "the index keeps its built-in default similarity (BM25), which qidf never changed")
        assert _versions(cluster, name) == versions


@pytest.mark.parametrize("strategy", ["close", "clone"])
def test_q1_returns_an_index_qidf_changed_to_its_settings_before_qidf(cluster, engine_url,
                                                                      fresh, strategy):
    name = fresh()
    (original,) = resolves_to(cluster, name)
    before = _raw(engine_url, f"/{name}/_settings")
    before_flat = cluster.request("GET", index_path(name, "_settings"),
                                  params={"flat_settings": "true"})[original]["settings"]
    install.apply(cluster, name, QlogParams(0.3), mode=Mode.SCRIPT, strategy=strategy)
    assert install.show(cluster, name)["params"]["q"] == 0.3
    dry = _qidf("apply", name, "--q", "auto", "--strategy", strategy, "--dry-run",
                url=engine_url)
    assert dry["dry_run"] and "would restore built-in default similarity" in dry["message"]
    assert install.show(cluster, name)["params"]["q"] == 0.3  # the dry run changed nothing
    result = _qidf("apply", name, "--q", "auto", "--strategy", strategy, url=engine_url)
    assert result["action"] == "revert" and result["changed"] and result["decision"]["q"] == 1
    assert "as `qidf revert` does" in result["message"]
    shown = install.show(cluster, name)
    assert shown["kind"] == "builtin" and shown["record"] is None
    (now,) = resolves_to(cluster, name)
    after_flat = cluster.request("GET", index_path(now, "_settings"),
                                 params={"flat_settings": "true"})[now]["settings"]
    assert similarity_of(after_flat) == similarity_of(before_flat) == {}
    if strategy == "close":  # the same index: its settings exactly as before qidf
        assert _raw(engine_url, f"/{name}/_settings") == before
    else:  # a clone now serves the name: only what the engine sets on every clone differs
        own = ("index.uuid", "index.creation_date", "index.provided_name",
               "index.resize.source.name", "index.resize.source.uuid", "index.blocks.write",
               "index.routing.allocation.initial_recovery._id", "index.routing_partition_size",
               "index.version.upgraded")
        assert {k: v for k, v in after_flat.items() if k not in own} == \
            {k: v for k, v in before_flat.items() if k not in own}
    assert leftovers(cluster, name) == [] and _state_docs(cluster, name) == []
    decided = predict.predict_for_index(cluster, name)
    again = install.apply_auto(cluster, name, QlogParams(decided.q), decision=decided.record(),
                               strategy=strategy)
    assert again.action == "none" and not again.changed


def test_plan_check_and_apply_file_agree_with_apply(cluster, engine_url, fresh,
                                                    tmp_path: Path):
    name = fresh()
    toml = tmp_path / "qidf.toml"
    toml.write_text(f'[[target]]\nindex = "{name}"\nq = "auto"\npredictor = "qidf-content"\n'
                    'mode = "script"\n')
    settings = _raw(engine_url, f"/{name}/_settings")
    versions = _versions(cluster, name)
    conns = Connections({}, fallback=lambda: ConnectionSettings.from_options(url=engine_url))
    report = _qidf("check", "-f", str(toml), url=engine_url)
    assert report["in_sync"] and report["exit_code"] == 0
    assert any("q auto decided q = 1" in n for n in report["notes"])
    plan = make_plan(load(toml), conns).as_dict()  # what `qidf plan -f` prints as JSON
    assert plan["summary"]["to_change"] == 0 and plan["items"][0]["action"] == "none"
    applied = _qidf("apply", "-f", str(toml), url=engine_url)
    assert applied["ok"] and applied["changed"] == []
    assert _raw(engine_url, f"/{name}/_settings") == settings
    assert _versions(cluster, name) == versions
    assert _state_docs(cluster, name) == []

    install.apply(cluster, name, QlogParams(0.3), mode=Mode.SCRIPT)
    drift = _qidf("check", "-f", str(toml), url=engine_url, code=3)
    assert drift["drift"][0]["reason"] == "has q 0.3, not predicted by qidf-content"
    (item,) = make_plan(load(toml), conns).as_dict()["items"]
    assert item["action"] == "revert" and item["after"] == "built-in default similarity (BM25)"
    applied = _qidf("apply", "-f", str(toml), url=engine_url)
    assert applied["ok"] and applied["changed"][0]["action"] == "revert"
    assert install.show(cluster, name)["kind"] == "builtin"
    assert _qidf("check", "-f", str(toml), url=engine_url)["in_sync"]
    assert _raw(engine_url, f"/{name}/_settings") == settings


def test_queries_are_code_installs_q_log_and_is_recorded(cluster, parity_index, engine_url):
    stated = predict.predict_for_index(cluster, parity_index, query_kind="code")
    assert stated.q == content.Q_CODE_QUERIES and not stated.ambiguous
    assert stated.query_kind_use == "decided"
    as_text = predict.predict_for_index(cluster, parity_index, query_kind="text")
    assert as_text.q == 1.0 and not as_text.ambiguous
    assert "text searched with text" in as_text.reason
    try:
        result = _qidf("apply", parity_index, "--q", "auto", "--queries-are", "code", "--mode",
                       "script", url=engine_url)
        assert result["changed"] and result["decision"]["query_kind"] == "code"
        shown = install.show(cluster, parity_index)
        assert shown["params"]["q"] == stated.q
        recorded = shown["record"]["installed"]["prediction"]
        assert (recorded["q"], recorded["predictor"]) == (stated.q, stated.predictor)
        assert (recorded["query_kind"], recorded["query_kind_use"]) == ("code", "decided")
        assert recorded["evidence"] == stated.evidence and recorded["ambiguous"] is False
        assert "queries stated to be code" in recorded["reason"]
        assert shown["record"]["previous"] == {}
    finally:
        install.revert(cluster, parity_index)
    assert install.show(cluster, parity_index)["record"] is None


def test_q1_on_elasticsearch_changes_nothing_and_reverts_the_plugin(es_cluster, go_task):
    """Elasticsearch 8.19 (plugin mode: its Maven Central build has no Painless)."""
    url = es_cluster.url
    name = NAME + "-es"
    for index in resolves_to(es_cluster, name):
        es_cluster.request("DELETE", index_path(index))
    indexing.create_index(es_cluster, name, analyzer="standard", shards=1)
    indexing.bulk_index(es_cluster, name, dict(list(go_task.corpus.items())[:DOCS]))
    try:
        settings = _raw(url, f"/{name}/_settings")
        mapping = _raw(url, f"/{name}/_mapping")
        versions = _versions(es_cluster, name)
        assert _qidf("apply", name, "--q", "auto", url=url)["action"] == "none"
        assert (_raw(url, f"/{name}/_settings"), _raw(url, f"/{name}/_mapping")) == (settings,
                                                                                     mapping)
        assert _versions(es_cluster, name) == versions
        _qidf("apply", name, "--q", "0.3", "--mode", "plugin", url=url)
        assert _qidf("apply", name, "--q", "auto", url=url)["action"] == "revert"
        assert _raw(url, f"/{name}/_settings") == settings
        assert install.show(es_cluster, name)["kind"] == "builtin"
    finally:
        for index in resolves_to(es_cluster, name):
            es_cluster.request("DELETE", index_path(index))
