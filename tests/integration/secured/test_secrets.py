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
    secrets_matrix.report("secured: the real node", runs, len(leaked))


def test_no_secret_through_a_proxy_that_echoes_the_decoded_credentials(
        secured, no_proxy_env, tmp_path, capsys, monkeypatch):
    """Issue 28: the real node's own refusals (401), passed on by a reverse proxy that adds
    the credentials it decoded from the Authorization header (``user:password``, ``id:key``,
    their parts): no spelling of any secret in any output; and the one correct password
    still succeeds through it. Issue 33: every answer, the successful ones included, also
    carries them in a ``Warning`` header (a Python warning in opensearch-py)."""
    from tests.support import netstubs

    fast_cli.install(monkeypatch)
    monkeypatch.setenv("QIDF_RETRIES", "0")
    proxy = netstubs.EchoingReverseProxy(secured.url, secured.access.ca_certs, warn=True)
    runs, leaked, masked, warned = 0, [], 0, 0
    try:
        cases = [(s, i) for i, s in enumerate(secrets_matrix.SECRETS)] + [(UTF8_PASSWORD, 99)]
        for secret, i in cases:
            for name, extra, env in secrets_matrix.channels(secret, tmp_path, i):
                if name in ("AWS_SECRET_ACCESS_KEY", "HTTPS_PROXY password"):
                    continue
                argv, full_env = expand(extra, env, proxy.url)
                if i == 99:
                    if "--user" not in argv and "URL" not in name:
                        continue
                    argv = [("qidf_utf8" if a == "u" else a) for a in argv]
                    argv = [a.replace("http://u:", "http://qidf_utf8:") for a in argv]
                with monkeypatch.context() as m:
                    for key, value in full_env.items():
                        m.setenv(key, value)
                    code, out, err = run(["show", INDEX, *argv], capsys, m)
                runs += 1
                masked += "proxy: the request carried ***" in err  # the echo was there
                warned += "warning: the server said: the request carried ***" in err
                found = secrets_matrix.leaks(secret, out + err, "qidf_utf8" if i == 99 else "u")
                if found or "Traceback" in out + err or (code == 0) != (i == 99):
                    leaked.append((name, repr(secret), code, found, err[:200]))
    finally:
        proxy.shutdown()
    assert runs >= 150 and masked >= runs // 2 and warned >= runs // 2, (runs, masked, warned)
    assert leaked == [], "\n".join(map(str, leaked))
    secrets_matrix.report("secured: the real node behind a proxy that echoes decoded "
                          "credentials", runs, len(leaked))
