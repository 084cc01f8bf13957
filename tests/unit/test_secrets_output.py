"""No secret ever reaches output: the secrets matrix (tests/secrets_matrix.py) through every
option, environment variable and file, and every profile reference, against a refused port,
a server answering 401 and one answering an HTML page, with and without --json, and against
servers that echo the credentials they decoded from the request in every body shape
(netstubs.EchoCredentials: JSON errors, a 403 naming the "user", a proxy's text, an HTML
page, a 200 whose cluster name is the credentials), each also in a ``Warning`` header (which
opensearch-py turns into a Python warning: one ``warning: the server said`` line, redacted),
each run with --verbose and --trace; all output and every trace file is grepped for every
spelling of the secret, raw, encoded and decoded. The same matrix runs against the real
secured node in tests/integration/secured/test_secrets.py."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from qidf_ctl.cluster.connection import ENV
from tests import secrets_matrix
from tests.support import fast_cli, netstubs

from .test_cli import run


@pytest.fixture(scope="module")
def targets():
    """name -> (url, the --json flags to run with)."""
    servers = [netstubs.Canned(401, b"Unauthorized", "text/plain"),
               netstubs.Canned(200, b"<html>login</html>")]
    echoes = {shape: netstubs.EchoCredentials(shape) for shape in netstubs.ECHO_SHAPES}
    both: list[list[str]] = [[], ["--json"]]
    found = {"refused": (f"http://127.0.0.1:{netstubs.free_port()}", both),
             "401": (servers[0].url, both), "html": (servers[1].url, both)}
    for k, (shape, srv) in enumerate(echoes.items()):  # one flag each, alternating
        found[f"echo {shape}"] = (srv.url, [both[k % 2]])
    yield found
    for srv in [*servers, *echoes.values()]:
        srv.shutdown()


def expand(extra: list[str], env: dict[str, str], url: str) -> tuple[list[str], dict[str, str]]:
    """The matrix's placeholders made concrete for ``url``."""
    out = list(extra)
    env = dict(env)
    host = urlsplit(url).netloc
    if "--url-secret" in out:
        at = out.index("--url-secret")
        out[at:at + 2] = ["--url", f"http://u:{out[at + 1]}@{host}"]
    else:
        out += ["--url", url]
    if "--proxy-secret" in out:
        at = out.index("--proxy-secret")
        proxy = f"http://u:{out[at + 1]}@127.0.0.1:{netstubs.free_port()}"
        del out[at:at + 2]
        env["HTTP_PROXY"] = env["HTTPS_PROXY"] = proxy
    return out, env


def test_no_secret_in_any_output(targets, tmp_path, capsys, monkeypatch):
    for name in [*ENV.values(), "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy",
                 "NO_PROXY", "no_proxy", "AWS_PROFILE", "QIDF_PROFILE", "QIDF_CONFIG"]:
        monkeypatch.delenv(name, raising=False)
    fast_cli.install(monkeypatch)
    monkeypatch.setenv("QIDF_RETRIES", "0")  # retries change nothing here but the time taken
    runs, leaked, traced, warned = 0, [], 0, 0
    trace = tmp_path / "trace.jsonl"
    for i, secret in enumerate(secrets_matrix.SECRETS):
        channels = [*secrets_matrix.channels(secret, tmp_path, i),
                    *secrets_matrix.profile_channels(secret, tmp_path, i)]
        for name, extra, env in channels:
            for target, (url, flags) in targets.items():
                argv, full_env = expand(extra, env, url)
                for json_flag in flags:
                    trace.unlink(missing_ok=True)
                    with monkeypatch.context() as m:
                        for key, value in full_env.items():
                            m.setenv(key, value)
                        code, out, err = run(["show", "idx", *argv, *json_flag, "--verbose",
                                              "--trace", str(trace)], capsys, m)
                    runs += 1
                    logged = trace.read_text() if trace.exists() else ""
                    traced += bool(logged)
                    warned += "warning: the server said: the request carried ***" in err
                    found = secrets_matrix.leaks(secret, out + err + logged)
                    if found or "Traceback" in out + err or code == 0:
                        leaked.append((name, target, repr(secret), code, found, err[:200]))
    assert runs == len(secrets_matrix.SECRETS) * (15 + 7) * sum(
        len(f) for _, f in targets.values())
    assert traced > runs / 3  # the runs that reached a server wrote their requests
    assert warned > runs / 4  # the echo servers' Warning headers were shown, redacted
    assert leaked == [], "\n".join(map(str, leaked))
    secrets_matrix.report("unit: loopback stand-ins and echo servers", runs, len(leaked))

