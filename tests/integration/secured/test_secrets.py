"""The secrets matrix (tests/secrets_matrix.py) against the real secured node: every secret
through every option, environment variable, file and profile reference that takes one,
answered by the real security plugin (a real 401, or a refusal before sending), plus the one
correct UTF-8 password through each password channel (a real success); all output and the
--trace file of every run grepped."""

from __future__ import annotations

from tests import secrets_matrix
from tests.support import fast_cli
from tests.unit.test_cli import run
from tests.unit.test_secrets_output import expand

from .conftest import INDEX, UTF8_PASSWORD


def test_no_secret_in_any_output_against_the_real_node(secured, no_proxy_env, tmp_path,
                                                       capsys, monkeypatch):
    fast_cli.install(monkeypatch)
    monkeypatch.setenv("QIDF_RETRIES", "0")
    monkeypatch.setenv("QIDF_CA_CERTS", secured.access.ca_certs)
    url = secured.url
    runs, leaked = 0, []
    cases = [(s, i) for i, s in enumerate(secrets_matrix.SECRETS)] + [(UTF8_PASSWORD, 99)]
    trace = tmp_path / "trace.jsonl"
    for secret, i in cases:
        user = "qidf_utf8" if i == 99 else "u"
        channels = [*secrets_matrix.channels(secret, tmp_path, i),
                    *secrets_matrix.profile_channels(secret, tmp_path, i, user)]
        for name, extra, env in channels:
            if name == "AWS_SECRET_ACCESS_KEY" or name == "HTTPS_PROXY password":
                continue  # not a credential of this node: covered by the unit matrix
            argv, full_env = expand(extra, env, url)
            argv = [a.replace("http://", "https://") if a.startswith("http://u:") else a
                    for a in argv]
            if i == 99:  # the correct password: only where it is a password, as qidf_utf8
                if "--user" not in argv and "URL" not in name and not (
                        name.startswith("profile password")):
                    continue
                argv = [("qidf_utf8" if a == "u" else a) for a in argv]
                argv = [a.replace("https://u:", "https://qidf_utf8:") for a in argv]
            for json_flag in ([], ["--json"]) if i in (0, 99) else ([],):
                trace.unlink(missing_ok=True)
                with monkeypatch.context() as m:
                    for key, value in full_env.items():
                        m.setenv(key, value)
                    code, out, err = run(["show", INDEX, *argv, *json_flag, "--verbose",
                                          "--trace", str(trace)], capsys, m)
                runs += 1
                logged = trace.read_text() if trace.exists() else ""
                found = secrets_matrix.leaks(secret, out + err + logged, user)
                expected_ok = i == 99 and "refused" not in name
                if found or "Traceback" in out + err or (code == 0) != expected_ok:
                    leaked.append((name, repr(secret), code, found, err[:200]))
    assert runs >= 170
    assert leaked == [], "\n".join(map(str, leaked))
