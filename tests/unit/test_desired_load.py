"""qidf.toml: what a valid file means, and one clear line (naming the file, the target and
the fix) for every kind of mistake, before any cluster is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from qidf_ctl import desired
from qidf_ctl.desired import DesiredStateError, parse
from qidf_ctl.errors import NotFoundError, UsageError

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE = """
version = 1

[clusters.prod]
url = "https://search.example.com:9200"
user = "qidf-ci"
password_env = "QIDF_PROD_PASSWORD"
ca_certs = "certs/ca.pem"

[defaults]
cluster = "prod"
mode = "script"

[[target]]
index = "code-search"
q = 0.3

[[target]]
pattern = "code-go-*"
q = "auto"
predictor = "qidf-gate"
field = "text"

[[target]]
alias = "docs"
q = 1
k1 = 0.9
b = 0.4
form = "rsj"
strategy = "clone"

[[target]]
template = "code-logs"
patterns = ["code-logs-*"]
q = 0.3
existing = false

[[target]]
component_template = "qidf-similarity"
q = 0.6
"""


def test_the_documented_example_parses(tmp_path):
    state = parse(EXAMPLE, "qidf.toml", tmp_path)
    kinds = [(t.kind, t.name) for t in state.targets]
    assert kinds == [("index", "code-search"), ("pattern", "code-go-*"), ("alias", "docs"),
                     ("template", "code-logs"), ("component_template", "qidf-similarity")]
    first, auto, alias, template, _ = state.targets
    assert first.cluster == "prod" and first.similarity.q == 0.3
    assert first.similarity.mode == "script"  # from [defaults]
    assert auto.similarity.auto and auto.similarity.predictor == "qidf-gate"
    assert auto.similarity.field == "text"
    assert (alias.similarity.k1, alias.similarity.b, alias.similarity.form) == (0.9, 0.4, "rsj")
    assert alias.similarity.strategy == "clone"
    assert template.patterns == ("code-logs-*",) and template.existing is False
    assert state.profiles["prod"].ca_certs == str((tmp_path / "certs/ca.pem").resolve())
    assert len(state.sha256) == 64


def test_the_example_in_the_docs_is_valid():
    text = (ROOT / "docs" / "how-to" / "gitops.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    state = parse(block, "docs/how-to/gitops.md")
    assert len(state.targets) >= 4


def _error(text: str) -> str:
    with pytest.raises(DesiredStateError) as info:
        parse(text, "qidf.toml")
    message = str(info.value)
    assert "\n" not in message and message.startswith("qidf.toml: ")
    assert "hunter2" not in message  # a secret in the file is never echoed
    return message


T = '[[target]]\nindex = "code"\n'


@pytest.mark.parametrize("text, expected", [
    (T + "q = 0.3\nk2 = 1", "unknown key 'k2' (did you mean 'k1'?)"),
    (T + "q = 0.3\npriority = 3", "priority applies only to template targets"),
    (T + "q = 3", "q must be a finite number in [0, 2]"),
    (T + 'q = "0.3"', 'q must be a number or "auto"'),
    (T + 'q = "auto"', "needs a pinned predictor"),
    (T + 'q = "auto"\npredictor = "nope"', "unknown predictor 'nope'"),
    (T + "q = 0.3\nk1 = -1", "k1 must be a finite number >= 0"),
    (T + "q = 0.3\nb = 2", "b must be a number in [0, 1]"),
    (T + 'q = 0.3\nmode = "native"', "mode must be one of auto, script, plugin"),
    (T + 'q = 0.3\nstrategy = "reindex"', "strategy must be one of close, clone"),
    (T + 'q = 0.3\nform = "bm25"', "form must be one of lucene, rsj"),
    (T + "k1 = 1.0", 'give q (a number in [0, 2], or "auto"'),
    (T + 'q = 0.3\ncluster = "prod"', "cluster 'prod' is not a [clusters.NAME] profile"),
    (T + 'q = 0.3\nsample = 1\nq2 = 1', "unknown key 'q2'"),
    (T + 'q = 0.3\nsample = 0', "sample must be >= 1"),
    ('[[target]]\nq = 0.3', "give exactly one of index / alias / pattern"),
    ('[[target]]\nindex = "a"\nalias = "b"\nq = 1', "(got index, alias)"),
    ('[[target]]\nindex = "Code"\nq = 1', "upper-case"),
    ('[[target]]\nindex = "a#b"\nq = 1', "'#'"),
    ('[[target]]\npattern = "*"\nq = 1', "must name something besides '*'"),
    ('[[target]]\ntemplate = "t"\nq = "auto"\npredictor = "paper"', "needs an index's statistics"),
    ('[[target]]\ntemplate = "t"\nq = 1\npatterns = ["a,b"]', "','"),
    ('[target]\nindex = "a"\nq = 1', "write [[target]]"),
    ("version = 1", "no [[target]]"),
    ("version = 2\n" + T + "q = 1", "version must be 1"),
    ("verison = 1\n" + T + "q = 1", "unknown key 'verison' (did you mean 'version'?)"),
    ('[clusters.prod]\nurl = "http://x:9200"\npassword = "hunter2"\n' + T + "q = 1",
     "password is refused"),
    ('[clusters.prod]\napi_key = "abc"\n' + T + "q = 1", "use api_key_env or api_key_file"),
    ('[clusters.prod]\nuser = "a"\n' + T + "q = 1", "give url (or url_env)"),
    ('[clusters.prod]\nurl = "http://ci:hunter2@x:9200"\n' + T + "q = 1", "url holds a password"),
    ('[defaults]\nindex = "x"\n' + T + "q = 1", "unknown key 'index'"),
    (T + "q = 0.3\n" + T + "q = 0.5", "names the same index as target 1"),
    (T + "q = 0.3\nk1 = nan", "k1 must be finite"),
    ("[[target]\n", "not valid TOML"),
])
def test_mistakes_are_one_line_naming_the_fix(text, expected):
    assert expected in _error(text)


def test_errors_name_the_target():
    message = _error(T + "q = 0.3\n" + '[[target]]\npattern = "code-*"\nq = 0.3\nk1 = -2')
    assert "target 2 (pattern code-*)" in message


def test_defaults_apply_where_they_fit_and_targets_override():
    state = parse('[defaults]\nq = 0.5\nexisting = false\nk1 = 1.0\n'
                  '[[target]]\nindex = "a"\n'
                  '[[target]]\ntemplate = "t"\nq = 0.7\n', "qidf.toml")
    index, template = state.targets
    assert index.similarity.q == 0.5 and index.similarity.k1 == 1.0
    assert template.similarity.q == 0.7 and template.existing is False


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(NotFoundError, match="not found"):
        desired.load(tmp_path / "qidf.toml")


def test_profile_reads_secrets_from_the_environment_only_when_connecting(monkeypatch, tmp_path):
    state = parse('[clusters.prod]\nurl_env = "MY_URL"\nuser = "ci"\npassword_env = "MY_PW"\n'
                  '[[target]]\nindex = "a"\nq = 1\ncluster = "prod"\n', "qidf.toml", tmp_path)
    profile = state.profiles["prod"]
    monkeypatch.delenv("MY_URL", raising=False)
    with pytest.raises(UsageError, match="environment variable MY_URL, which is not set"):
        profile.settings()
    monkeypatch.setenv("MY_URL", "https://search.example.com:9200")
    monkeypatch.setenv("MY_PW", "s3cret")
    settings = profile.settings()
    assert settings.url == "https://search.example.com:9200"
    assert settings.username == "ci" and settings.password == "s3cret"
    assert "s3cret" not in repr(settings) and "s3cret" not in str(profile.as_dict())


def test_one_index_from_options_is_validated_like_a_file():
    state = desired.one_index("code", {"q": 0.3, "k1": 1.2, "b": 0.75, "form": "lucene",
                                       "mode": "script", "predictor": None})
    assert state.targets[0].similarity.q == 0.3
    with pytest.raises(DesiredStateError, match=r"command line: target 1 .*b must be"):
        desired.one_index("code", {"q": 0.3, "b": 7.0})
