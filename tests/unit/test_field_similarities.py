"""A q of their own for some fields of new indices (issue 35): ``qidf render --field-q``, index
templates, and ``fields`` in qidf.toml for template targets. The engine fixes a field's
similarity when the index is created, so these are named similarities in the settings and
the mapping naming them, written where new indices come from."""

from __future__ import annotations

import json

import pytest

from qidf_ctl.desired import apply_plan, check, make_plan, parse
from qidf_ctl.desired.load import DesiredStateError
from qidf_ctl.desired.render import (
    RenderFormat,
    field_similarities,
    field_similarity_name,
    index_template,
    render_format,
)
from qidf_ctl.errors import UsageError
from qidf_ctl.similarity import Mode, QlogParams

from .test_cli import run
from .test_desired_fake import FakeCluster
from .test_desired_plan import conns

TEMPLATE = """
[[target]]
template = "code"
patterns = ["code-*"]
q = 0.6
mode = "script"
fields = { doc = 1, code = 0.3 }
"""


def test_named_similarities_and_the_mapping_that_names_them():
    named, props = field_similarities({"code": 0.3, "doc": 1.0, "meta.title": 0.7},
                                      QlogParams(0.6), Mode.PLUGIN, True)
    assert set(named) == {"qidf_code", "qidf_meta_title"}  # q 1 is the built-in BM25
    assert named["qidf_code"] == {"type": "qlog_bm25", "q": 0.3, "k1": 1.2, "b": 0.75,
                                  "form": "lucene"}
    assert props["code"] == {"type": "text", "similarity": "qidf_code"}
    assert props["doc"] == {"type": "text", "similarity": "BM25"}
    assert props["meta"]["properties"]["title"]["similarity"] == "qidf_meta_title"
    assert field_similarity_name("a-b.c", 0.5) == "qidf_a_b_c"


def test_render_formats_with_fields():
    body = render_format(RenderFormat.SETTINGS, QlogParams(0.6), Mode.SCRIPT, True,
                         fields={"doc": 1.0})
    assert set(body) == {"settings", "mappings"}
    assert "default" in body["settings"]["index"]["similarity"]
    plain = render_format(RenderFormat.SETTINGS, QlogParams(0.6), Mode.SCRIPT, True)
    assert set(plain) == {"index"}  # without fields: the settings alone, as before
    tpl = index_template(QlogParams(0.6), Mode.SCRIPT, True, ["code-*"], fields={"code": 0.3})
    assert tpl["template"]["mappings"]["properties"]["code"]["similarity"] == "qidf_code"
    assert tpl["_meta"]["qidf"]["installed"]["fields"] == {"code": 0.3}
    for fmt in (RenderFormat.FLAT, RenderFormat.TERRAFORM):
        with pytest.raises(UsageError, match="named in the mapping"):
            render_format(fmt, QlogParams(0.6), Mode.SCRIPT, True, fields={"doc": 1.0})


def test_render_cli(capsys, monkeypatch):
    code, out, err = run(["render", "--q", "0.6", "--field-q", "code=0.3,doc=1"], capsys,
                         monkeypatch)
    assert code == 0, err
    body = json.loads(out)
    assert body["mappings"]["properties"]["doc"]["similarity"] == "BM25"
    for bad, words in (("doc", "FIELD=Q pairs"), ("doc=3", "q must be"),
                       ("doc=1,doc=0.5", "twice"), ("a b=1", "FIELD=Q pairs")):
        code, out, err = run(["render", "--q", "0.6", "--field-q", bad], capsys, monkeypatch)
        assert code == 2 and out == "" and words in err and err.count("\n") == 1


def test_qidf_toml_fields_for_templates_only():
    state = parse(TEMPLATE, "qidf.toml")
    assert state.targets[0].similarity.field_qs == {"doc": 1.0, "code": 0.3}
    with pytest.raises(DesiredStateError, match="fields applies only to template"):
        parse('[[target]]\nindex = "code"\nq = 0.6\nfields = { doc = 1 }\n', "qidf.toml")
    with pytest.raises(DesiredStateError, match=r"fields\.doc"):
        parse(TEMPLATE.replace("doc = 1", "doc = 7"), "qidf.toml")
    with pytest.raises(DesiredStateError, match="fields must be"):
        parse(TEMPLATE.replace("{ doc = 1, code = 0.3 }", '"doc"'), "qidf.toml")


def test_plan_creates_updates_and_then_finds_the_template_in_sync():
    fake = FakeCluster()
    state = parse(TEMPLATE, "qidf.toml")
    plan = make_plan(state, conns(fake))
    item = plan.items[0]
    assert item.action == "create"
    assert item.body["template"]["mappings"]["properties"]["code"]["similarity"] == "qidf_code"
    assert any(r["key"].startswith("index.similarity.qidf_code.") for r in item.settings_diff)
    assert any("get their own q" in n for n in item.notes)
    assert apply_plan(plan, conns(fake)).ok
    assert check(state, conns(fake)).in_sync
    # a hand edit of the mapping's similarity is drift, and apply puts it back, keeping
    # the field's other parameters
    fake.templates["code"]["template"]["mappings"]["properties"]["doc"] = {
        "type": "text", "analyzer": "standard", "similarity": "boolean"}
    item = make_plan(state, conns(fake)).items[0]
    assert item.action == "update" and "per-field similarities differ: doc" in item.reason
    assert item.body["template"]["mappings"]["properties"]["doc"] == {
        "type": "text", "analyzer": "standard", "similarity": "BM25"}
    assert apply_plan(make_plan(state, conns(fake)), conns(fake)).ok
    assert check(state, conns(fake)).in_sync
