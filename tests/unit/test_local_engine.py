"""The local engine's refusals, each one clear line, before anything is downloaded or run."""

from __future__ import annotations

import os
import socket
import stat

import pytest

from qidf_ctl.engine import artifacts, java
from qidf_ctl.engine import process as local_engine
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.errors import EngineError


@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv("QIDF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return EngineConfig.from_env(port=9299)


def test_port_taken_is_refused(cfg):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        cfg.port = sock.getsockname()[1]
        with pytest.raises(EngineError, match=rf"port {cfg.port} on 127.0.0.1 \(HTTP port of "
                                              rf"node qidf-{cfg.port}\) is already in use"):
            local_engine.start(cfg)


@pytest.mark.parametrize("env, match", [
    ({"QIDF_ENGINE_VERSION": "latest"}, "version must look like"),
    ({"QIDF_ENGINE_HEAP": "lots"}, "heap must look like"),
    ({"QIDF_ENGINE_PORT": "80"}, "port must be in"),
])
def test_bad_settings(monkeypatch, env, match):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(EngineError, match=match):
        EngineConfig.from_env()


def test_java_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "nojava"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(java, "Path", _NoJvmPath)
    with pytest.raises(EngineError, match="no Java 17"):
        java.find_java("2.19.6", explicit=str(tmp_path / "nothing"))


class _NoJvmPath(type(java.Path())):  # type: ignore[misc]
    """A Path whose /usr/lib/jvm does not exist."""

    def is_dir(self) -> bool:
        return False if str(self) == "/usr/lib/jvm" else super().is_dir()


def test_download_failure_is_one_clear_line(tmp_path, monkeypatch):
    fake_mvn = tmp_path / "mvn"
    fake_mvn.write_text("#!/bin/sh\necho '[ERROR] Could not transfer artifact: Network is "
                        "unreachable' >&2\nexit 1\n")
    fake_mvn.chmod(fake_mvn.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    dep = artifacts.Coordinate("org.opensearch.distribution.integ-test-zip", "opensearch",
                               "2.19.6", "zip")
    with pytest.raises(EngineError, match=r"download from Maven Central failed.*Network is "
                                          r"unreachable.*run again"):
        artifacts.fetch([dep], tmp_path / "out")


def test_corrupt_download_is_deleted(tmp_path):
    bad = tmp_path / "opensearch-2.19.6.zip"
    bad.write_bytes(b"not the real zip")
    with pytest.raises(EngineError, match="checksum mismatch"):
        artifacts.verify(bad)
    assert not bad.exists()


def test_status_and_stop_when_nothing_runs(cfg):
    info = local_engine.status(cfg)
    assert info["running"] is False and info["url"] == "http://127.0.0.1:9299"
    assert local_engine.stop(cfg) is False


def test_stop_never_kills_a_foreign_pid(cfg):
    cfg.node_dir.mkdir(parents=True)
    (cfg.node_dir / "node.json").write_text(
        f'{{"pid": {os.getpid()}, "port": 9299, "version": "2.19.6", '
        f'"url": "http://127.0.0.1:9299", "node_dir": "{cfg.node_dir}", "started_at": 0}}')
    assert local_engine.stop(cfg) is False  # our own pid is not an OpenSearch node


@pytest.mark.parametrize(("shipped", "missing"), [
    ((), ("lang-painless", "analysis-common")),  # 2.x integ-test zips ship neither
    (("lang-painless", "analysis-common"), ()),  # 3.6.0+ ship both (FileExistsError before)
    (("analysis-common",), ("lang-painless",)),
])
def test_only_modules_the_zip_lacks_are_added(tmp_path, shipped, missing):
    import zipfile

    from qidf_ctl.engine.assemble import _missing_modules

    zip_path = tmp_path / "opensearch.zip"
    with zipfile.ZipFile(zip_path, "w") as zf:
        zf.writestr("opensearch-3.6.0/bin/opensearch", "#!/bin/sh\n")
        zf.writestr("opensearch-3.6.0/modules/transport-netty4/a.jar", "")
        for name in shipped:
            zf.writestr(f"opensearch-3.6.0/modules/{name}/{name}.jar", "")
    got = _missing_modules(zip_path, "opensearch-3.6.0",
                           ("lang-painless", "analysis-common"))
    assert got == missing


def test_only_files_with_a_pinned_sha256_skip_mavens_checksums():
    es9 = artifacts.Coordinate("org.elasticsearch.distribution.integ-test-zip", "elasticsearch",
                               "9.5.3", "zip")
    es8 = artifacts.Coordinate("org.elasticsearch.distribution.integ-test-zip", "elasticsearch",
                               "8.19.21", "zip")
    assert es9.filename in artifacts.PINNED_SHA256  # Maven Central has no checksum for it
    assert artifacts.checksum_policy([es9]) == "--lax-checksums"
    assert artifacts.checksum_policy([es8]) == "--strict-checksums"
    assert artifacts.checksum_policy([es9, es8]) == "--strict-checksums"
    assert artifacts.checksum_policy([]) == "--strict-checksums"
