"""Successful answers that carry the credentials (issue 33): the real node behind a reverse
proxy that puts the credentials it decoded from each request in a ``Warning`` header of
every answer and at the end of every text field of every search hit. ``qidf show``,
``search`` (text and ``--json``) and ``qidf mcp`` (a search and a fetch over JSON-RPC), real
processes with a password, an API key and a profile, each with ``--verbose`` and
``--trace``: they succeed, the server's warning is one redacted line, and no spelling of the
secret is on stdout, stderr, the trace file or in the MCP results."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests import secrets_matrix
from tests.support import mcp_wire, netstubs
from tests.unit.test_output_channels import SECRETS

pytestmark = pytest.mark.integration




def _channels(secret: str, folder, n: int, url: str):
    config = folder / f"config-{n}.toml"
    config.write_text(f'[clusters.p]\nurl = "{url}"\nuser = "probe-user"\n'
                      'password_env = "QIDF_PROBE_SECRET"\n', encoding="utf-8")
    return [("--password", ["--url", url, "--user", "probe-user", "--password", secret], {}),
            ("QIDF_API_KEY", ["--url", url], {"QIDF_API_KEY": secret}),
            ("profile password_env", ["--profile", "p"],
             {"QIDF_CONFIG": str(config), "QIDF_PROBE_SECRET": secret})]


def test_successful_answers_that_echo_the_credentials(cluster, parity_index, tmp_path):
    doc_id = cluster.request("POST", f"/{parity_index}/_search", {"size": 1})["hits"]["hits"][0][
        "_id"]
    proxy = netstubs.EchoingReverseProxy(cluster.url, refusals_as=None, warn=True,
                                         poison=True)
    commands = [("show", ["show", parity_index]), ("show --json", ["show", parity_index,
                                                                  "--json"]),
                ("search", ["search", parity_index, "func Reader", "--q", "0.3"]),
                ("search --json", ["search", parity_index, "func Reader", "--q", "0.3",
                                   "--json"]),
                ("mcp", ["mcp", parity_index, "--q", "0.3"])]
    cases = []
    for n, secret in enumerate(SECRETS):
        for name, extra, env in _channels(secret, tmp_path, n, proxy.url):
            for command, argv in commands:
                trace = tmp_path / f"trace-{len(cases)}.jsonl"
                cases.append((name, command, secret, [*argv, *extra, "--verbose", "--trace",
                                                      str(trace)], env, trace))

    def one(case):
        _, command, _, argv, env, _ = case
        full = mcp_wire.clean_env({"QIDF_HOME": str(tmp_path / "home"), **env})
        if command == "mcp":
            code, answers, err = mcp_wire.exchange(argv[1:], [
                mcp_wire.call(2, "search_code", {"query": "func Reader", "max_results": 3}),
                mcp_wire.call(3, "fetch_document", {"id": doc_id})], full)
            return code, "\n".join(json.dumps(a, ensure_ascii=False) for a in answers), err
        proc = subprocess.run([sys.executable, "-m", "qidf_ctl", *argv], capture_output=True,
                              text=True, env=full, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr

    try:
        with ThreadPoolExecutor(3) as pool:
            results = list(pool.map(one, cases))
    finally:
        proxy.shutdown()
    problems = []
    for (name, command, secret, _, _, trace), (code, out, err) in zip(cases, results,
                                                                       strict=True):
        logged = trace.read_text() if trace.exists() else ""
        found = secrets_matrix.leaks(secret, out + err + logged, "probe-user")
        heard = "warning: the server said: the request carried ***" in err
        poisoned = command.startswith(("search", "mcp"))
        shown = "the request carried ***" in out
        if found or code != 0 or not heard or "Traceback" in out + err or ".py:" in err \
                or (poisoned and not shown) or not logged:
            problems.append((name, command, repr(secret), code, found, heard, shown,
                             err[-400:], out[-400:]))
    answers = [json.loads(line) for (_, c, *_), (_, out, _) in zip(cases, results, strict=True)
               if c == "mcp" for line in out.splitlines()]
    calls = [a for a in answers if a.get("id") in (2, 3)]
    assert len(calls) == 2 * len(SECRETS) * 3, answers[:3]
    assert all(not a["result"].get("isError") for a in calls), calls[:2]
    assert problems == [], "\n".join(map(str, problems))
    secrets_matrix.report("integration: the real node behind a proxy that echoes the "
                          "credentials in a Warning header and in every search hit "
                          "(successes: show, search, mcp)", len(cases), len(problems),
                          len(SECRETS))
