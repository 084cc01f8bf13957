"""render's formats: each is the same similarity in another shape (one rendering, many
wrappers), and each CLI example in `qidf render --help` produces what it says."""

from __future__ import annotations

import json
import sys

import pytest

from qidf_ctl import cli
from qidf_ctl.desired import RenderFormat, render_format
from qidf_ctl.desired.templates import similarity_flat
from qidf_ctl.similarity import Mode, QlogParams, flatten, render, similarity_value

P = QlogParams(0.3)


@pytest.mark.parametrize("mode", list(Mode))
@pytest.mark.parametrize("legacy", [True, False])
def test_every_format_carries_the_same_similarity(mode, legacy):
    value = similarity_value(P, mode, legacy)
    settings = render_format(RenderFormat.SETTINGS, P, mode, legacy)
    assert settings == render(P, mode, legacy)
    flat = render_format(RenderFormat.FLAT, P, mode, legacy)
    assert flat == {f"index.similarity.default.{k}": v for k, v in flatten(value).items()}
    template = render_format(RenderFormat.TEMPLATE, P, mode, legacy, patterns=["a-*"],
                             priority=7)
    assert template["index_patterns"] == ["a-*"] and template["priority"] == 7
    assert similarity_flat(template) == flatten(value)
    component = render_format(RenderFormat.COMPONENT_TEMPLATE, P, mode, legacy)
    assert similarity_flat(component) == flatten(value)
    assert "index_patterns" not in component
    terraform = render_format(RenderFormat.TERRAFORM, P, mode, legacy)
    assert isinstance(terraform, str) and "\n" not in terraform
    assert json.loads(terraform) == value


def test_template_records_what_it_installs_without_a_timestamp():
    body = render_format(RenderFormat.TEMPLATE, P, Mode.PLUGIN, True, patterns=["x-*"],
                         data_stream=True)
    installed = body["_meta"]["qidf"]["installed"]
    assert installed["q"] == 0.3 and installed["mode"] == "plugin"
    assert "at" not in installed  # the same input renders the same bytes
    assert body["data_stream"] == {}


def run(argv, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["qidf", *argv])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize("fmt", [f.value for f in RenderFormat])
def test_render_json_names_the_format_and_engine(fmt, capsys, monkeypatch):
    extra = ["--pattern", "code-logs-*"] if fmt == "template" else []
    code, out, _ = run(["render", "--q", "0.3", "--format", fmt, "--engine",
                        "elasticsearch-8.19.21", "--mode", "plugin", "--json", *extra],
                       capsys, monkeypatch)
    assert code == 0
    payload = json.loads(out)
    assert payload["format"] == fmt and payload["engine"] == "elasticsearch-8.19.21"
    assert payload["params"]["q"] == 0.3 and payload["mode"] == "plugin"


def test_render_terraform_prints_the_bare_json_string(capsys, monkeypatch):
    code, out, _ = run(["render", "--q", "0.3", "--format", "terraform"], capsys, monkeypatch)
    assert code == 0 and out.count("\n") == 1
    assert json.loads(out)["type"] == "scripted"


@pytest.mark.parametrize("argv, message", [
    (["--format", "template"], "--format template needs --pattern"),
    (["--format", "flat", "--pattern", "a-*"], "--pattern applies only to --format template"),
    (["--format", "template", "--pattern", "a,b"], "','"),
    (["--format", "yaml"], "'yaml' is not one of"),
    (["--engine", "solr-9"], "opensearch-VERSION or elasticsearch-VERSION"),
])
def test_render_bad_input_is_one_line(argv, message, capsys, monkeypatch):
    code, out, err = run(["render", "--q", "0.3", *argv], capsys, monkeypatch)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_render_auto_says_where_q_comes_from(capsys, monkeypatch):
    code, _, err = run(["render", "--q", "auto"], capsys, monkeypatch)
    assert code == 2 and "qidf predict INDEX" in err
