"""Profiles and the request log on the real engine: every cluster command runs with
`--profile` alone (the profile's url, proxy, timeout and retries), and the `--trace` of each
shows exactly the requests that reached the cluster, counted by a proxy in between (every
request, each once, in the profile's proxy)."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from qidf_ctl.cluster.connection import ENV
from qidf_ctl.cluster.query import target
from qidf_ctl.evaluation import files, indexing
from tests.support import netstubs
from tests.unit.test_cli import run

pytestmark = pytest.mark.integration
INDEX = "qidf-it-profiles"
DOCS = 3000


@pytest.fixture(scope="module")
def proxy():
    server = netstubs.ForwardProxy()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def small_index(cluster, go_task, tmp_path_factory):
    """Real Go docstrings (the first DOCS), and the code queries whose gold is among them."""
    corpus = dict(list(go_task.corpus.items())[:DOCS])
    indexing.create_index(cluster, INDEX, analyzer="standard", shards=1)
    indexing.bulk_index(cluster, INDEX, corpus)
    qrels = {q: g for q, g in go_task.qrels.items() if set(g) <= set(corpus)}
    queries = {q: go_task.queries[q] for q in list(qrels)[:20]}
    folder = tmp_path_factory.mktemp("queries")
    files.write_queries(queries, folder / "q.jsonl")
    files.write_qrels({q: qrels[q] for q in queries}, folder / "qrels.trec")
    (folder / "qidf.toml").write_text(f'[[target]]\nindex = "{INDEX}"\nq = 0.3\n')
    yield folder
    cluster.request("DELETE", f"/{INDEX}")


@pytest.fixture
def profile_env(engine_url, proxy, tmp_path, monkeypatch):
    for var in [*ENV.values(), "QIDF_PROFILE", "QIDF_TRACE", "QIDF_VERBOSE", "HTTPS_PROXY",
                "HTTP_PROXY", "https_proxy", "http_proxy", "NO_PROXY", "no_proxy"]:
        monkeypatch.delenv(var, raising=False)
    config = tmp_path / "config.toml"
    config.write_text(f'[clusters.it]\nurl = "{engine_url}"\nproxy = "{proxy.url}"\n'
                      'timeout = 120\nretries = 0\n')
    monkeypatch.setenv("QIDF_CONFIG", str(config))
    return monkeypatch


def _commands(folder: Path) -> list[list[str]]:
    q, r = str(folder / "q.jsonl"), str(folder / "qrels.trec")
    return [
        ["show", INDEX], ["stats", INDEX], ["predict", INDEX, "--queries", q],
        ["search", INDEX, "func (r *Reader) Read(p []byte) (n int, err error)", "--q", "0.3"],
        ["eval", INDEX, "--queries", q, "--qrels", r],
        ["apply", INDEX, "--q", "0.3"], ["check", INDEX, "--q", "0.3"],
        ["sweep", INDEX, "--queries", q, "--qrels", r, "--grid", "0.3,1", "--reference",
         "none"],
        ["revert", INDEX], ["recover", INDEX], ["plan", "-f", str(folder / "qidf.toml")],
    ]


def test_every_cluster_command_with_a_profile_traces_every_request(
        small_index, proxy, profile_env, capsys, tmp_path):
    proxy.take()
    for number, argv in enumerate(_commands(small_index)):
        trace = tmp_path / f"trace-{number}.jsonl"
        code, out, err = run([*argv, "--profile", "it", "--trace", str(trace), "--verbose"],
                             capsys, profile_env)
        assert code == 0, (argv, err[-1500:])
        seen = collections.Counter()
        for line in proxy.take():  # "GET http://127.0.0.1:PORT/path?query"
            method, _, absolute = line.partition(" ")
            parts = urlsplit(absolute)
            seen[f"{method} {parts.path}{'?' + parts.query if parts.query else ''}"] += 1
        lines = [json.loads(x) for x in trace.read_text().splitlines()]
        traced = collections.Counter(
            f"{x['method']} {target(x['path'], x.get('query'))}" for x in lines)
        assert traced == seen and sum(seen.values()) >= 2, argv
        assert all(x["status"] is not None and x["bytes"] is not None for x in lines)
        verbose = [x for x in err.splitlines() if x.startswith("request: ")]
        assert len(verbose) == len(lines), argv
    assert INDEX in out  # plan's last output names the index


def test_an_option_overrides_one_key_of_the_profile(small_index, proxy, profile_env, capsys):
    """--proxy none over the profile's proxy: the requests go straight to the engine (the
    proxy sees none), to the profile's url."""
    proxy.take()
    code, out, err = run(["show", INDEX, "--profile", "it", "--proxy", "none", "--verbose"],
                         capsys, profile_env)
    assert code == 0 and INDEX in out and "request: GET /" in err
    assert proxy.take() == []
    code, _, err = run(["show", INDEX, "--profile", "nope"], capsys, profile_env)
    assert code == 2 and "profile 'nope' is not in" in err
