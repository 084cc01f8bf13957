"""A profile of the user's config file against the real secured node: TLS from the profile's
CA bundle, a least-privilege user whose password is read from the file the profile names,
and the request log of it: the commands work with --profile alone, and the password is in
no output and no trace."""

from __future__ import annotations

import json
from pathlib import Path

from tests import secrets_matrix
from tests.support import fast_cli
from tests.unit.test_cli import run

from .conftest import INDEX


def test_a_tls_profile_with_a_password_file(secured, no_proxy_env, tmp_path, capsys,
                                            monkeypatch):
    fast_cli.install(monkeypatch)
    for var in ("QIDF_CA_CERTS", "QIDF_URL", "QIDF_USER", "QIDF_PASSWORD", "QIDF_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    password_file = secured.password_file("qidf_op")
    config = tmp_path / "config.toml"
    config.write_text(f'[clusters.secured]\nurl = "{secured.url}"\nuser = "qidf_op"\n'
                      f'password_file = "{password_file}"\nca_certs = '
                      f'"{secured.access.ca_certs}"\nretries = 0\n')
    monkeypatch.setenv("QIDF_CONFIG", str(config))
    trace = tmp_path / "trace.jsonl"
    password = Path(password_file).read_text(encoding="utf-8").strip()
    for argv in (["show", INDEX], ["stats", INDEX], ["predict", INDEX],
                 ["profiles", "show", "secured"]):
        extra = [] if argv[0] == "profiles" else ["--profile", "secured", "--verbose",
                                                  "--trace", str(trace)]
        code, out, err = run([*argv, *extra], capsys, monkeypatch)
        assert code == 0, (argv, err[-800:])
        assert secrets_matrix.leaks(password, out + err + trace.read_text(), "qidf_op") == []
    lines = [json.loads(x) for x in trace.read_text().splitlines()]
    assert lines and {x["status"] for x in lines} <= {200, 404}  # 404: no journal, no lease
    assert all(x["status"] == 200 for x in lines if x["path"] == "/")  # TLS and login held
    # Without the profile's CA bundle the same node is not trusted: the profile carried it.
    config.write_text(config.read_text().replace(f'ca_certs = "{secured.access.ca_certs}"\n',
                                                 ""))
    code, _, err = run(["show", INDEX, "--profile", "secured"], capsys, monkeypatch)
    assert code == 4 and password not in err
