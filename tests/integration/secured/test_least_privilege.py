"""Least privilege on the real security plugin: every command as a user whose role holds only
what docs/how-to/privileges.md documents; a missing privilege named in one line with the role JSON
that grants it, and that JSON, granted, is what makes the command work."""

from __future__ import annotations

import json
import re

import pytest

from qidf_ctl.cluster import index_path, roles, segment
from qidf_ctl.errors import EXIT_AUTH, ClusterError
from tests.support import fast_cli
from tests.unit.test_cli import run

from .conftest import EMPTY_ROLE, INDEX


def test_every_command_as_the_least_privileged_operator(secured, no_proxy_env, capsys,
                                                       monkeypatch):
    fast_cli.install(monkeypatch)
    op = secured.args("qidf_op")

    code, out, err = run(["apply", INDEX, "--q", "0.3", "--json", *op], capsys, monkeypatch)
    assert code == 0, err
    applied = json.loads(out)
    assert applied["changed"] and "Painless" in applied["mode_reason"]
    assert "warning" in applied["mode_reason"] and "cluster:monitor/nodes/info" in \
        applied["mode_reason"]  # --mode auto fell back: the role has no nodes/info
    for argv in (["show", INDEX], ["stats", INDEX], ["predict", INDEX],
                 ["eval", INDEX, "--queries", secured.queries, "--qrels", secured.qrels,
                  "--token-counter", "regex"]):
        code, out, err = run([*argv, "--json", *op], capsys, monkeypatch)
        assert code == 0, (argv, err)
    assert json.loads(out)["mean"]["NDCG@10"] > 0.2  # eval ran for real
    code, out, err = run(["revert", INDEX, "--json", *op], capsys, monkeypatch)
    assert code == 0, err
    assert json.loads(out)["changed"]


def test_a_wrong_password_is_a_real_401(secured, no_proxy_env, capsys, monkeypatch):
    args = ["--url", secured.url, "--ca-certs", secured.access.ca_certs, "--user", "qidf_op",
            "--password", "not-the-password"]
    code, out, err = run(["show", INDEX, *args], capsys, monkeypatch)
    assert code == EXIT_AUTH and "HTTP 401" in err and err.count("\n") == 1
    assert "not-the-password" not in out + err


def test_a_user_without_roles_gets_the_privilege_and_role_json(secured, no_proxy_env, capsys,
                                                               monkeypatch):
    code, _out, err = run(["show", INDEX, *secured.args("qidf_nobody")], capsys, monkeypatch)
    assert code == EXIT_AUTH and err.count("\n") == 1
    assert "user 'qidf_nobody' lacks cluster:monitor/main" in err
    assert '{"cluster_permissions": ["cluster:monitor/main"]}' in err


def _grant(admin, hint: str) -> None:
    """Add the role JSON quoted in ``hint`` to the test role, through the security REST API."""
    grant = json.loads(re.search(r"(\{.*\}) \(docs/", hint).group(1))
    path = f"/_plugins/_security/api/roles/{segment(EMPTY_ROLE)}"
    role = admin.request("GET", path)[EMPTY_ROLE]
    body = {"cluster_permissions": sorted(set(role.get("cluster_permissions", []))
                                          | set(grant.get("cluster_permissions", []))),
            "index_permissions": role.get("index_permissions", [])}
    for extra in grant.get("index_permissions", []):
        same = [p for p in body["index_permissions"]
                if p["index_patterns"] == extra["index_patterns"]]
        if same:
            same[0]["allowed_actions"] = sorted(set(same[0]["allowed_actions"])
                                                | set(extra["allowed_actions"]))
        else:
            body["index_permissions"].append({k: extra[k] for k in ("index_patterns",
                                                                    "allowed_actions")})
    admin.request("PUT", path, body)


def test_following_the_hints_grows_exactly_a_documented_role(secured, no_proxy_env, capsys,
                                                             monkeypatch):
    """Starting from an empty role, run `qidf show` and grant what each refusal names:
    the command succeeds, and every action granted is one docs/how-to/privileges.md lists."""
    fast_cli.install(monkeypatch)
    admin = secured.cluster("admin")
    for _ in range(12):
        code, _out, err = run(["show", INDEX, *secured.args("qidf_grant")], capsys, monkeypatch)
        if code == 0:
            break
        assert code == EXIT_AUTH and "lacks" in err, err
        _grant(admin, err)
    assert code == 0, err
    role = admin.request("GET", f"/_plugins/_security/api/roles/{EMPTY_ROLE}")[EMPTY_ROLE]
    granted = set(role["cluster_permissions"]) | {
        a for p in role["index_permissions"] for a in p["allowed_actions"]}
    documented = set(roles.OPERATOR_CLUSTER) | set(roles.OPERATOR_INDEX)
    assert granted <= documented, granted - documented


def test_the_documented_clone_and_state_requests_pass(secured, no_proxy_env):
    """The requests of --strategy clone and of the lease/journal index qidf-state (issue 10's
    code paths), as a user with qidf_operator + qidf_clone and nothing else."""
    op = secured.cluster("qidf_clone_op")
    admin = secured.cluster("admin")
    src, dst = "code-clonesrc", "code-clonesrc-qidf-0a1b2c3d"
    # an earlier test's `qidf apply` made qidf-state already: this test creates it itself
    admin.request("DELETE", index_path("qidf-state"), None, {"ignore_unavailable": True})
    admin.request("PUT", index_path(src), {"settings": {"number_of_shards": 1,
                                                        "number_of_replicas": 0}})
    try:
        assert op.request("PUT", index_path(src, "_block", "write"))["acknowledged"]
        op.request("POST", index_path(src, "_refresh"))
        assert op.request("GET", index_path(src, "_count"))["count"] == 0
        op.request("GET", index_path(src, "_stats", "search"))
        op.request("POST", f"{index_path(src, '_clone')}/{segment(dst)}",
                   {"settings": {"index.blocks.write": None}})
        op.request("GET", f"/_resolve/index/{segment(src)}")
        op.request("GET", index_path(src, "_alias"))
        op.request("PUT", index_path(dst, "_settings"), {"index.blocks.write": None})
        assert op.request("POST", index_path(dst, "_close"))["acknowledged"]
        op.request("POST", index_path(dst, "_open"))
        op.request("POST", "/_aliases", {"actions": [
            {"add": {"index": dst, "alias": src}}, {"remove_index": {"index": src}}]})
        state = "qidf-state"
        op.request("PUT", index_path(state), {"settings": {"number_of_shards": 1,
                                                           "auto_expand_replicas": "0-1",
                                                           "hidden": True}})
        op.request("GET", index_path(state, "_settings", "index.uuid"))
        doc = f"{index_path(state, '_create')}/{segment('lease:' + src)}"
        written = op.request("PUT", doc, {"kind": "lease"})
        path = f"{index_path(state, '_doc')}/{segment('lease:' + src)}"
        assert op.request("GET", path)["found"]
        op.request("DELETE", path, None, {"if_seq_no": written["_seq_no"],
                                          "if_primary_term": written["_primary_term"]})
        op.request("DELETE", index_path(state))
    finally:
        for name in (dst, "qidf-state"):
            admin.request("DELETE", index_path(name), None, {"ignore_unavailable": True})


def test_a_refusal_names_the_action(secured, no_proxy_env):
    with pytest.raises(ClusterError) as info:
        secured.cluster("qidf_search").request("GET", index_path(INDEX, "_mapping"))
    assert info.value.exit_code == EXIT_AUTH
    assert "lacks indices:admin/mappings/get on code-go" in str(info.value)


def test_a_close_refused_per_shard_inside_a_200_is_caught(secured, no_proxy_env):
    """With indices:admin/close but not its per-shard part, _close answers 200 with
    acknowledged=false and the index stays open: qidf says which privilege is missing."""
    with pytest.raises(ClusterError) as info:
        secured.cluster("qidf_halfclose").request("POST", index_path(INDEX, "_close"))
    assert info.value.exit_code == EXIT_AUTH and "indices:admin/close[s]" in str(info.value)
    assert secured.cluster("admin").index_state(INDEX) == "open"
