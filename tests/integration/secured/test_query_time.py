"""A user who holds only read actions gets q-log results from ``qidf search``, on the real
security plugin: the role is ``qidf_query_time`` (docs/how-to/privileges.md), which cannot read the
index's settings or mapping, run ``_analyze`` or change anything. The hits equal an admin's,
whose run also checked that the field scores with built-in BM25."""

from __future__ import annotations

import json

import pytest

from qidf_ctl.cluster import index_path
from qidf_ctl.errors import EXIT_AUTH, ClusterError
from qidf_ctl.evaluation import files
from qidf_ctl.querytime.target import ASSUMED
from tests.support import fast_cli
from tests.unit.test_cli import run

from .conftest import INDEX


def _search(secured, user: str, text: str, capsys, monkeypatch) -> tuple[int, str, str]:
    return run(["search", INDEX, text, "--q", "0.3", "--json", *secured.args(user)],
               capsys, monkeypatch)


def test_a_read_only_user_gets_the_admins_q_log_hits(secured, no_proxy_env, capsys,
                                                     monkeypatch):
    fast_cli.install(monkeypatch)
    with pytest.raises(ClusterError) as refused:  # the role really is read-only
        secured.cluster("qidf_qt").request("GET", index_path(INDEX, "_mapping"))
    assert refused.value.status == 403
    texts = list(files.read_queries(secured.queries).values())[:5]
    for text in texts:
        code, out, err = _search(secured, "qidf_qt", text, capsys, monkeypatch)
        assert code == 0, err
        assert "privilege" not in err and "403" not in err
        reader = json.loads(out)
        code, out, err = _search(secured, "admin", text, capsys, monkeypatch)
        assert code == 0, err
        admin = json.loads(out)
        assert reader["similarity"] == ASSUMED and admin["similarity"] != ASSUMED
        assert reader["q"] == admin["q"] == 0.3
        assert len(reader["hits"]) == 10
        assert [(h["id"], h["score"]) for h in reader["hits"]] == \
            [(h["id"], h["score"]) for h in admin["hits"]]
        assert reader["request"] == admin["request"]


def test_plain_search_privileges_get_one_line_naming_the_missing_action(
        secured, no_proxy_env, capsys, monkeypatch):
    fast_cli.install(monkeypatch)
    text = next(iter(files.read_queries(secured.queries).values()))
    code, out, err = run(["search", INDEX, text, "--q", "0.3", *secured.args("qidf_search")],
                         capsys, monkeypatch)
    assert code == EXIT_AUTH, err
    assert out == "" and "Traceback" not in err
    assert "indices:data/read/" in err  # tv or field_caps, named with the role that grants it
