"""Connection profiles: one format and one loader for qidf.toml's [clusters.NAME] and the
user's config file, --profile on every cluster command, the command line over the profile
field by field, and secrets only by reference."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.main

from qidf_ctl import cli
from qidf_ctl.cluster import Cluster
from qidf_ctl.cluster.connection import ENV
from qidf_ctl.cluster.profile_file import config_path, load_config, parse_profiles
from qidf_ctl.cluster.profiles import KEYS, Profile
from qidf_ctl.errors import ClusterError, NotFoundError, UsageError
from tests.support.git_history import build_history

from .test_cli import run

PROFILES = """
[clusters.prod]
url = "https://search.example.com:9200"
user = "ci"
password_env = "QIDF_TEST_PROD_PW"
ca_certs = "certs/ca.pem"
timeout = 12.5
retries = 1

[clusters.cloud]
cloud_id = "dep:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyRhYmMxMjMkZGVmNDU2"
api_key_file = "~/keys/cloud.key"

[clusters.local]
url = "http://127.0.0.1:9200"
"""


@pytest.fixture
def clean_env(monkeypatch):
    for var in [*ENV.values(), "QIDF_PROFILE", "QIDF_CONFIG", "XDG_CONFIG_HOME",
                "QIDF_VERBOSE", "QIDF_TRACE", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy",
                "http_proxy", "NO_PROXY", "no_proxy"]:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


@pytest.fixture
def config(tmp_path, clean_env) -> Path:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    path = tmp_path / "config.toml"
    path.write_text(PROFILES)
    clean_env.setenv("QIDF_CONFIG", str(path))
    return path


def _error(text: str, tmp_path: Path) -> str:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(UsageError) as info:
        load_config(path)
    return str(info.value)


# --- the file ------------------------------------------------------------------------------

def test_the_config_file_is_found_the_xdg_way(tmp_path, clean_env):
    assert config_path() == (Path("~/.config/qidf/config.toml").expanduser(), "default")
    clean_env.setenv("XDG_CONFIG_HOME", "relative/ignored")
    assert config_path()[1] == "default"
    clean_env.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config_path() == (tmp_path / "qidf" / "config.toml", "XDG_CONFIG_HOME")
    clean_env.setenv("QIDF_CONFIG", str(tmp_path / "mine.toml"))
    assert config_path() == (tmp_path / "mine.toml", "QIDF_CONFIG")


def test_profiles_are_read_with_paths_resolved_against_the_file(config, tmp_path):
    loaded = load_config()
    assert loaded.exists and sorted(loaded.profiles) == ["cloud", "local", "prod"]
    prod = loaded.profile("prod")
    assert prod.ca_certs == str(tmp_path / "certs" / "ca.pem")
    assert prod.timeout == 12.5 and prod.retries == 1 and prod.source == str(config)
    assert loaded.profile("cloud").api_key_file == str(Path("~/keys/cloud.key").expanduser())


@pytest.mark.parametrize("text, expected", [
    ('[clusters.p]\nurl = "http://x:9200"\npassword = "hunter2"',
     "[clusters.p]: password is refused"),
    ('[clusters.p]\nurl = "http://x:9200"\napi_key = "abc"', "use api_key_env or api_key_file"),
    ('[clusters.p]\nurl = "http://x:9200"\nbearer_token = "abc"',
     "use bearer_token_env or bearer_token_file"),
    ('[clusters.p]\nurl = "http://u:hunter2@x:9200"', "url holds a password"),
    ('[clusters.p]\nurl = "http://x:9200"\nproxy = "http://u:hunter2@p:3128"',
     "proxy holds a password"),
    ('[clusters.p]\nurl = "http://x:9200"\npasword_env = "X"',
     "unknown key 'pasword_env' (did you mean 'password_env'?)"),
    ('[clusters.p]\nurl = "http://x:9200"\ntimeout = "soon"', "timeout must be a finite number"),
    ('[clusters.p]\nurl = "http://x:9200"\nretries = 1.5', "retries must be an integer"),
    ('[clusters.p]\nurl = "http://x:9200"\ninsecure = "yes"', "insecure must be true or false"),
    ('[clusters.p]\nurl = "http://x:9200"\npassword_env = "A"\npassword_file = "b"',
     "give password_env or password_file, not both"),
    ('[clusters.p]\nuser = "a"', "give url (or url_env), or cloud_id"),
    ('[clusters]\np = 3', "[clusters.p]: must be a table"),
    ('[defaults]\nq = 1', "unknown key 'defaults' at the top level"),
    ("version = 2", "version must be 1"),
    ("[clusters.p\n", "not valid TOML"),
])
def test_mistakes_are_one_line_naming_the_file_and_key(text, expected, tmp_path):
    message = _error(text, tmp_path)
    assert expected in message and str(tmp_path / "bad.toml") in message
    assert "hunter2" not in message


def test_qidf_toml_and_the_config_file_share_one_loader(tmp_path):
    """Every key the config file takes, qidf.toml takes (and the docs' reference lists)."""
    from qidf_ctl import desired
    from qidf_ctl.desired import spec

    assert [k.name for k in spec.CLUSTER_KEYS] == [k.name for k in KEYS]
    table = PROFILES.replace("~/keys/cloud.key", "cloud.key")
    state = desired.parse(table + '\n[[target]]\nindex = "a"\nq = 1\ncluster = "prod"\n',
                          "qidf.toml", tmp_path)
    direct = parse_profiles(load_config_text(table, tmp_path), "qidf.toml", tmp_path)
    assert state.profiles == direct


def load_config_text(text: str, folder: Path) -> dict:
    from qidf_ctl.textfile import loads_toml

    return loads_toml(text, "config.toml")["clusters"]


def test_an_absent_file_is_empty_until_a_profile_is_asked_for(tmp_path, clean_env):
    clean_env.setenv("QIDF_CONFIG", str(tmp_path / "none.toml"))
    loaded = load_config()
    assert not loaded.exists and loaded.profiles == {}
    with pytest.raises(NotFoundError, match=r"none.toml does not exist: write \[clusters.x\]"):
        loaded.profile("x")


# --- the command line over the profile -----------------------------------------------------

def test_the_profile_alone(config, clean_env, tmp_path):
    clean_env.setenv("QIDF_TEST_PROD_PW", "s3cret-pw")
    s = load_config().profile("prod").settings({}, environment=True)
    assert (s.url, s.username, s.password) == ("https://search.example.com:9200", "ci",
                                               "s3cret-pw")
    assert s.ca_certs == str(tmp_path / "certs" / "ca.pem")
    assert (s.timeout, s.retries) == (12.5, 1)


def test_options_override_field_by_field(config, clean_env):
    clean_env.setenv("QIDF_TEST_PROD_PW", "s3cret-pw")
    prod = load_config().profile("prod")
    s = prod.settings({"url": "https://other.example.com:9200", "retries": 5})
    assert s.url == "https://other.example.com:9200" and s.retries == 5
    assert s.username == "ci" and s.timeout == 12.5  # the rest still the profile's
    clean_env.setenv("QIDF_URL", "https://env.example.com:9200")
    assert prod.settings({}, environment=True).url == "https://env.example.com:9200"
    assert prod.settings({}).url == "https://search.example.com:9200"  # qidf.toml's way


def test_another_way_to_authenticate_replaces_the_profiles(config, clean_env, tmp_path):
    """--api-key-file over a profile with user + password: the profile's password variable
    is not even read (it is not set here)."""
    key = tmp_path / "key"
    key.write_text("aWQ6a2V5\n")
    s = load_config().profile("prod").settings({"api_key_file": str(key)})
    assert s.api_key == "aWQ6a2V5" and s.username is None and s.password is None
    pw = tmp_path / "pw"
    pw.write_text("from-a-file\n")
    s = load_config().profile("prod").settings({"password_file": str(pw)})
    assert (s.username, s.password) == ("ci", "from-a-file")  # same way: user kept


def test_secrets_are_read_only_when_connecting(config, clean_env):
    prod = load_config().profile("prod")  # reading the file needs no secret
    with pytest.raises(UsageError, match="QIDF_TEST_PROD_PW, which is not set"):
        prod.settings({})
    assert "QIDF_TEST_PROD_PW" in json.dumps(prod.as_dict())


def test_a_cloud_id_profile_and_a_url_on_the_command_line(config, clean_env, tmp_path):
    cloud = load_config().profile("cloud")
    assert cloud.describe()["cluster"] == "Elastic Cloud ID dep:..."
    key = tmp_path / "k"
    key.write_text("aWQ6a2V5")
    s = cloud.settings({"url": "http://127.0.0.1:9200", "api_key_file": str(key)})
    assert s.url == "http://127.0.0.1:9200" and s.cloud_id is None


def test_every_connection_option_has_a_profile_key():
    """Profiles cover every connection option a command line has."""
    from qidf_ctl.cli.options import ClusterOptions

    options = {f for f in ClusterOptions.__dataclass_fields__} - {
        "profile", "verbose", "trace", "request_log"}
    keys = {k.name for k in KEYS}
    for option in options:
        secret = option.removesuffix("_file") if option.endswith("_file") else option
        assert option in keys or f"{secret}_env" in keys or option in (
            "password", "api_key", "bearer_token"), option
    assert {f"{s}_env" for s in ("password", "api_key", "bearer_token")} <= keys


def test_a_profile_in_code():
    p = Profile("x", url="http://127.0.0.1:9300", retries=0)
    assert p.settings().url == "http://127.0.0.1:9300" and p.settings().retries == 0


# --- --profile on every cluster command ------------------------------------------------------

def _cluster_commands() -> list[str]:
    group = typer.main.get_command(cli.app)
    names = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        for sub_name, sub in (getattr(command, "commands", None) or {name: command}).items():
            if any(p.name == "profile" for p in sub.params):
                names.append(name if sub is command else f"{name} {sub_name}")
    return sorted(names)


def _args(tmp_path: Path) -> dict[str, list[str]]:
    queries, qrels, toml = tmp_path / "q.jsonl", tmp_path / "qrels.trec", tmp_path / "qidf.toml"
    queries.write_text('{"_id": "1", "text": "func main"}\n')
    qrels.write_text("1 0 d1 1\n")
    toml.write_text('[[target]]\nindex = "code"\nq = 0.3\n')
    repo = build_history(tmp_path / "repo")
    return {
        "judgments git": [str(repo), "--index", "code", "--path-field", "path", "--out",
                          str(tmp_path / "j")],
        "judgments ubi": ["ubi:", "--out", str(tmp_path / "j")],
        "apply": ["code", "--q", "0.3"], "revert": ["code"], "recover": ["code"],
        "show": ["code"], "stats": ["code"], "predict": ["code"],
        "eval": ["code", "--queries", str(queries), "--qrels", str(qrels)],
        "sweep": ["code", "--queries", str(queries), "--qrels", str(qrels), "--grid", "0.3"],
        "search": ["code", "func main", "--q", "0.3"], "demo": ["--queries", "1"],
        "plan": ["-f", str(toml)], "check": ["code", "--q", "0.3"], "mcp": ["code"],
        "snapshot refresh": ["code"],
    }


def test_profile_reaches_the_connection_of_every_cluster_command(config, clean_env, tmp_path,
                                                                 capsys):
    commands = _cluster_commands()
    args = _args(tmp_path)
    assert commands == sorted(args)  # a new cluster command: add it here
    seen = []

    def connect(cls, settings):
        seen.append(settings)
        raise ClusterError("stopped by the test", status=503)

    clean_env.setattr(Cluster, "connect", classmethod(connect))
    for command in commands:
        code, _, err = run([*command.split(), *args[command], "--profile", "local"], capsys,
                           clean_env)
        assert code == 7 and "stopped by the test" in err, (command, err)
        assert seen.pop().url == "http://127.0.0.1:9200", command
    clean_env.setenv("QIDF_PROFILE", "local")  # the variable does what the option does
    code, _, _ = run(["show", "code"], capsys, clean_env)
    assert code == 7 and seen.pop().url == "http://127.0.0.1:9200"


def test_a_bad_profile_is_refused_before_any_work(config, clean_env, capsys, tmp_path):
    touched = []
    clean_env.setattr(Cluster, "connect", classmethod(lambda cls, s: touched.append(s)))
    code, out, err = run(["show", "code", "--profile", "nope"], capsys, clean_env)
    assert code == 2 and "profile 'nope' is not in" in err and "(profiles there: cloud, " \
        "local, prod)" in err and touched == []
    bad = tmp_path / "bad.toml"
    bad.write_text('[clusters.local]\nurl = "http://x:9200"\npassword = "hunter2"\n')
    clean_env.setenv("QIDF_CONFIG", str(bad))
    code, out, err = run(["apply", "code", "--q", "0.3", "--profile", "local"], capsys,
                         clean_env)
    assert code == 2 and f"{bad}: [clusters.local]: password is refused" in err
    assert "hunter2" not in out + err and touched == []
    code, _, _ = run(["show", "code", "--url", "http://127.0.0.1:9200"], capsys, clean_env)
    assert len(touched) == 1  # without --profile the config file is never read


# --- qidf profiles -------------------------------------------------------------------------

def test_profiles_list_and_show(config, clean_env, capsys):
    code, out, _ = run(["profiles", "list"], capsys, clean_env)
    assert code == 0 and f"config file: {config} (from QIDF_CONFIG)" in out
    assert "prod   https://search.example.com:9200  (user ci, password from " \
        "$QIDF_TEST_PROD_PW)" in out
    code, out, _ = run(["profiles", "list", "--json"], capsys, clean_env)
    listed = json.loads(out)
    assert listed["exists"] and sorted(listed["profiles"]) == ["cloud", "local", "prod"]
    code, out, err = run(["profiles", "show", "prod"], capsys, clean_env)
    assert code == 2 and "(NOT SET in this shell)" in out and "QIDF_TEST_PROD_PW" in err
    clean_env.setenv("QIDF_TEST_PROD_PW", "s3cret-pw")
    clean_env.setenv("QIDF_TIMEOUT", "3")
    code, out, err = run(["profiles", "show", "prod", "--json"], capsys, clean_env)
    shown = json.loads(out)
    assert code == 0 and shown["valid"] and shown["overridden_by"] == ["QIDF_TIMEOUT"]
    assert shown["references"]["password_env"] == {"variable": "QIDF_TEST_PROD_PW", "set": True}
    assert shown["references"]["ca_certs"]["readable"] is True
    assert "s3cret-pw" not in out + err
