"""A local cluster of several nodes, without starting any: its settings, the node folders,
the refusals, and the order of a rolling restart's steps (against a recorded fake)."""

from __future__ import annotations

import json
import os
import sys

import pytest

from qidf_ctl import cli
from qidf_ctl.engine import layout, local_http, plugin, process, rolling
from qidf_ctl.engine.config import EngineConfig
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.errors import EngineError


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("QIDF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    for var in ("QIDF_ENGINE_HEAP", "QIDF_ENGINE_NODES", "QIDF_ENGINE", "QIDF_ENGINE_PORT"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path / "home"


def _specs(cfg: EngineConfig) -> list[NodeSpec]:
    return [NodeSpec(cfg.for_port(p), cfg.ports) for p in cfg.ports]


def _record(cfg: EngineConfig, port: int, ports: tuple[int, ...], **extra: object) -> None:
    node = cfg.for_port(port).node_dir
    node.mkdir(parents=True, exist_ok=True)
    (node / "node.json").write_text(json.dumps({
        "pid": os.getpid(), "port": port, "version": cfg.version, "url": f"http://x:{port}",
        "node_dir": str(node), "started_at": 0, "distribution": cfg.distribution,
        "cluster_ports": list(ports), "heap": "512m", **extra}))


# --- settings ---------------------------------------------------------------------------------

def test_cluster_heap_defaults_small_and_single_node_keeps_1g(home, monkeypatch):
    assert EngineConfig.from_env(port=9241).heap == "1g"
    three = EngineConfig.from_env(port=9241, nodes=3)
    assert (three.heap, three.ports) == ("512m", (9241, 9242, 9243))
    assert EngineConfig.from_env(port=9241, nodes=3, heap="768m").heap == "768m"
    monkeypatch.setenv("QIDF_ENGINE_NODES", "2")
    monkeypatch.setenv("QIDF_ENGINE_HEAP", "600m")
    env = EngineConfig.from_env(port=9241)
    assert (env.nodes, env.heap) == (2, "600m")


@pytest.mark.parametrize("overrides, match", [
    ({"nodes": 0}, "nodes must be 1-9"), ({"nodes": 10}, "nodes must be 1-9"),
    ({"port": 65500}, "port must be in 1024-65435"),
    ({"port": 65434, "nodes": 3}, r"ports 65434-65436 \(and their transport ports \+100\)"),
])
def test_bad_cluster_settings(home, overrides, match):
    with pytest.raises(EngineError, match=match):
        EngineConfig.from_env(**overrides)


def test_three_nodes_find_each_other_and_nothing_else(home):
    specs = _specs(EngineConfig.from_env(port=9241, nodes=3))
    settings = [s.settings() for s in specs]
    assert [s["http.port"] for s in settings] == ["9241", "9242", "9243"]
    assert [s["transport.port"] for s in settings] == ["9341", "9342", "9343"]
    assert len({s["path.data"] for s in settings}) == 3
    assert len({s["path.logs"] for s in settings}) == 3
    for s in settings:
        assert s["network.host"] == "127.0.0.1" and "discovery.type" not in s
        assert s["discovery.seed_hosts"] == "127.0.0.1:9341,127.0.0.1:9342,127.0.0.1:9343"
        assert s["cluster.initial_cluster_manager_nodes"] == "qidf-9241,qidf-9242,qidf-9243"
        assert s["cluster.name"] == "qidf-local-9241"
        assert s["cluster.routing.allocation.awareness.attributes"] == "qidf_node"
    assert [s["node.attr.qidf_node"] for s in settings] == ["qidf-9241", "qidf-9242",
                                                             "qidf-9243"]


def test_single_node_and_elasticsearch_settings(home):
    (single,) = _specs(EngineConfig.from_env(port=9241))
    s = single.settings()
    assert s["discovery.type"] == "single-node" and s["cluster.name"] == "qidf-local"
    assert "discovery.seed_hosts" not in s and "node.attr.qidf_node" not in s
    es = _specs(EngineConfig.from_env("elasticsearch-8.19.21", port=9241, nodes=3))[1]
    settings = es.settings()
    assert settings["cluster.initial_master_nodes"] == "qidf-9241,qidf-9242,qidf-9243"
    assert "cluster.initial_cluster_manager_nodes" not in settings
    assert not es.can_drain and "node.attr.qidf_node" not in settings
    old = _specs(EngineConfig.from_env("opensearch-2.3.0", port=9241, nodes=3))[0]
    assert not old.can_drain  # weighted routing came with OpenSearch 2.4


# --- node folders -----------------------------------------------------------------------------

def _fake_dist(path):
    (path / "bin").mkdir(parents=True)
    (path / "bin" / "opensearch").write_text("#!/bin/sh\n")
    (path / "lib").mkdir()
    (path / "lib" / "server.jar").write_bytes(b"jar")
    (path / "plugins" / "other-plugin").mkdir(parents=True)
    (path / "plugins" / "other-plugin" / "p.jar").write_bytes(b"p")
    return path


def test_each_node_gets_a_hard_linked_distribution_without_plugins(home, tmp_path):
    shared = _fake_dist(tmp_path / "shared")
    spec = _specs(EngineConfig.from_env(port=9241, nodes=3))[0]
    dist = layout.ensure_node_dist(spec, shared)
    assert (dist / "lib" / "server.jar").stat().st_ino == (shared / "lib" /
                                                          "server.jar").stat().st_ino
    assert list((dist / "plugins").iterdir()) == []
    (dist / "plugins" / "mine").mkdir()
    assert layout.ensure_node_dist(spec, shared) == dist
    assert (dist / "plugins" / "mine").is_dir()  # kept: same engine
    other = NodeSpec(EngineConfig.from_env("opensearch-3.8.0", port=9241, nodes=3),
                     spec.members)
    layout.ensure_node_dist(other, shared)
    assert not (dist / "plugins" / "mine").exists()  # another engine: a fresh copy


def test_folder_of_another_engine_or_cluster_is_refused(home):
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    spec = _specs(cfg)[0]
    (spec.node_dir / "data" / "nodes").mkdir(parents=True)
    _record(cfg, 9241, (9241,))
    with pytest.raises(EngineError, match=r"holds data of a single node, not of "
                                          r"opensearch-2\.19\.6 on ports 9241-9243"):
        process._check_folder(spec)
    _record(cfg, 9241, cfg.ports, version="2.19.1")
    with pytest.raises(EngineError, match=r"holds data of opensearch-2\.19\.1"):
        process._check_folder(spec)
    _record(cfg, 9241, cfg.ports)
    process._check_folder(spec)  # its own data: fine


def test_status_and_stop_cover_every_recorded_node(home):
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    for port in cfg.ports:
        _record(cfg, port, cfg.ports)  # our own pid: alive, but not an engine
    single = EngineConfig.from_env(port=9242)  # any node's port finds the whole cluster
    info = process.status(single)
    assert [n["url"] for n in info["nodes"]] == [f"http://127.0.0.1:{p}" for p in cfg.ports]
    assert (info["running"], info["running_nodes"]) == (False, 0)
    assert process.stop(single) is False  # never a pid that is not an engine of ours
    recorded = process.recorded(single)
    assert (recorded.port, recorded.nodes, recorded.heap) == (9241, 3, "512m")


@pytest.mark.parametrize("main, ours", [
    ("org.opensearch.bootstrap.OpenSearch", True),
    ("org.elasticsearch.server/org.elasticsearch.bootstrap.Elasticsearch", True),
    ("org.example.Main", False),
])
def test_engine_processes_are_recognised_by_main_class_and_exact_folder(tmp_path, main, ours):
    node = tmp_path / "node-9241"
    args = ["/usr/bin/java", "-Xmx1g", f"-Dqidf.node.dir={node}", "-cp", "x", main]
    assert process.is_engine_command(args, node) is ours
    other = tmp_path / "node-924"  # a prefix of the real folder is another node
    assert process.is_engine_command(args, other) is False


def test_cli_status_of_a_stopped_cluster_exits_3(home, capsys, monkeypatch):
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    for port in cfg.ports:
        _record(cfg, port, cfg.ports)
    monkeypatch.setattr(sys, "argv", ["qidf", "engine", "status", "--port", "9243"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    out = capsys.readouterr().out
    assert exit_info.value.code == 3
    assert out.startswith("0 of 3 nodes running: opensearch-2.19.6 cluster")
    assert out.count("not running") == 3


def test_cli_refuses_zero_nodes_in_one_line(home, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["qidf", "engine", "start", "--nodes", "0"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--nodes" in err


# --- rolling restart --------------------------------------------------------------------------

class Recorder:
    """Stands in for the nodes: records every HTTP call and process step in order."""

    def __init__(self) -> None:
        self.steps: list[str] = []

    def call(self, url, method, path, body=None, timeout=30):
        port = url.rsplit(":", 1)[1]
        self.steps.append(f"{method} {path} {json.dumps(body, sort_keys=True) if body else ''}"
                          f" via {port}".replace("  ", " "))
        if path == "/_cluster/health":
            return {"status": "green"}
        if path.startswith("/_cluster/health?"):
            return {"status": "green", "timed_out": False}
        if path.endswith("/weights") and method == "GET":
            return {"weights": {}, "_version": 4}
        if "/stats/indices/search" in path:
            return {"nodes": {"x": {"indices": {"search": {
                "query_current": 0, "fetch_current": 0, "open_contexts": 0}}}}}
        return {"acknowledged": True}


@pytest.fixture
def recorder(home, monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(local_http, "call", rec.call)
    monkeypatch.setattr(rolling.time, "sleep", lambda s: None)
    monkeypatch.setattr(process, "running_pid", lambda cfg: 1)
    monkeypatch.setattr(process, "stop_node",
                        lambda cfg, **kw: rec.steps.append(f"stop {cfg.port}"))
    monkeypatch.setattr(process, "start_node",
                        lambda spec, *args, **kw: rec.steps.append(f"start {spec.port}"))
    return rec


def test_rolling_restart_drains_pauses_and_waits_for_each_node(recorder):
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    changed: list[int] = []
    steps = rolling.restart_each(cfg, lambda spec, progress: changed.append(spec.port),
                                 ports=[9242])
    assert changed == [9242] and [s["port"] for s in steps] == [9242]
    assert steps[0]["drain_busy"] == {}
    assert recorder.steps == [
        "GET /_cluster/health via 9241",
        "GET /_cluster/routing/awareness/qidf_node/weights via 9241",
        'PUT /_cluster/routing/awareness/qidf_node/weights {"_version": 4, "weights": '
        '{"qidf-9241": "1", "qidf-9242": "0", "qidf-9243": "1"}} via 9241',
        "GET /_nodes/qidf-9242/stats/indices/search via 9241",
        "GET /_nodes/qidf-9242/stats/indices/search via 9241",
        'PUT /_cluster/settings {"persistent": {"cluster.routing.allocation.enable": '
        '"primaries"}} via 9241',
        "POST /_flush via 9241",
        "stop 9242",
        "start 9242",
        'PUT /_cluster/settings {"persistent": {"cluster.routing.allocation.enable": null}} '
        "via 9241",
        "GET /_cluster/health?wait_for_status=green&wait_for_no_initializing_shards=true"
        "&timeout=300s via 9242",
        "GET /_cluster/routing/awareness/qidf_node/weights via 9241",
        'DELETE /_cluster/routing/awareness/weights {"_version": 4} via 9241',
    ]


def test_a_drain_that_never_goes_quiet_stops_the_node_and_says_what_was_open(recorder,
                                                                            monkeypatch):
    busy = {"query_current": 0, "fetch_current": 0, "open_contexts": 3}
    monkeypatch.setattr(recorder, "call", lambda url, method, path, body=None, timeout=30: (
        {"nodes": {"x": {"indices": {"search": busy}}}} if "/stats/indices/search" in path
        else Recorder.call(recorder, url, method, path, body, timeout)))
    monkeypatch.setattr(local_http, "call", recorder.call)
    monkeypatch.setattr(rolling, "DRAIN_TIMEOUT_S", 0.05)
    said: list[str] = []
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    steps = rolling.restart_each(cfg, lambda spec, progress: None, ports=[9242],
                                 progress=said.append)
    assert steps[0]["drain_busy"] == {"open_contexts": 3}
    assert "stop 9242" in recorder.steps
    assert any("still had searches after 0.05s (open_contexts 3); stopping it" in m
               for m in said)


def test_rolling_restart_resumes_allocation_and_weights_when_a_node_fails(recorder,
                                                                          monkeypatch):
    def broken(spec, *args, **kw):
        raise EngineError("node qidf-9241 exited during start")

    monkeypatch.setattr(process, "start_node", broken)
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    with pytest.raises(EngineError, match="exited during start"):
        rolling.restart_each(cfg, lambda spec, progress: None)
    assert any('"cluster.routing.allocation.enable": null' in s for s in recorder.steps)
    assert recorder.steps[-1].startswith("DELETE /_cluster/routing/awareness/weights")


def test_plugin_install_refuses_ports_outside_the_cluster(home, tmp_path):
    zip_path = tmp_path / "p.zip"
    zip_path.write_bytes(b"zip")
    cfg = EngineConfig.from_env(port=9241, nodes=3)
    with pytest.raises(EngineError, match=r"port\(s\) \[9250\] are not nodes of the local "
                                          "cluster on ports 9241-9243"):
        plugin.install_local(cfg, zip_path, ports=[9250])


# --- the start path's hooks (how issue 12's --security plugs in) ------------------------------

def test_prepare_hooks_run_for_every_node_before_its_jvm_starts(home, tmp_path, monkeypatch):
    shared = _fake_dist(tmp_path / "shared")
    (shared / "config").mkdir()
    (shared / "config" / "jvm.options").write_text("-XX:ErrorFile=logs/hs_err.log\n")
    launched: list[list[str]] = []

    class FakeProc:
        pid, returncode = 4242, None

        def poll(self):
            return None

    def popen(args, **kw):
        launched.append(args)
        return FakeProc()

    monkeypatch.setattr(process, "find_java", lambda *a: tmp_path / "jdk")
    monkeypatch.setattr(process, "assemble", lambda cfg, progress: shared)
    monkeypatch.setattr(process, "running_pid", lambda cfg: None)
    monkeypatch.setattr(process, "_check_ports", lambda spec: None)
    monkeypatch.setattr(process.node_user, "node_user", lambda: None)  # no root checks here
    monkeypatch.setattr(process.subprocess, "Popen", popen)
    monkeypatch.setattr(process, "_wait_joined", lambda launched, size, timeout, probe=None: None)
    monkeypatch.setattr(process, "status", lambda cfg: {"nodes": []})
    seen = []

    def hook(spec, settings, progress):
        seen.append(spec.port)
        (spec.config / "extra.yml").write_text("x: 1\n")  # persists across restarts
        settings["plugins.example.enabled"] = "true"  # this start only

    process.start(EngineConfig.from_env(port=9241, nodes=3), prepare=[hook])
    assert seen == [9241, 9242, 9243]
    for port, args in zip((9241, 9242, 9243), launched, strict=True):
        assert args[0].endswith(f"node-{port}/dist/bin/opensearch")
        assert "-Eplugins.example.enabled=true" in args
        assert f"-Ehttp.port={port}" in args
    assert (home / "node-9242" / "config" / "extra.yml").is_file()


def test_wait_joined_asks_the_probe_instead_of_plain_http(home, monkeypatch):
    """A secured node answers only over TLS as the admin: the probe decides it has joined."""
    class FakeProc:
        returncode = None

        def poll(self):
            return None

    asked: list[int] = []

    def probe(spec):
        asked.append(spec.port)
        return {"status": "green", "number_of_nodes": 1}

    monkeypatch.setattr(local_http, "health", lambda url: pytest.fail("plain HTTP used"))
    monkeypatch.setattr(process, "_adopt_java_pid", lambda cfg, pid_file: None)
    spec = NodeSpec(EngineConfig.from_env(port=9241), (9241,))
    process._wait_joined([(spec, FakeProc())], 1, 5, probe)
    assert asked == [9241]


def test_plugin_install_on_a_secured_node_restarts_it_with_the_tls_probe(home, tmp_path,
                                                                         monkeypatch):
    from qidf_ctl.engine import security

    cfg = EngineConfig.from_env(port=9241)
    access = cfg.node_dir / security.ACCESS_DIR / "access.json"
    access.parent.mkdir(parents=True)
    access.write_text("{}")
    zip_path = tmp_path / "p.zip"
    zip_path.write_bytes(b"zip")
    passed = {}
    monkeypatch.setattr(plugin, "restart_each",
                        lambda cfg, change, ports, progress, probe=None:
                        passed.update(probe=probe) or [])
    monkeypatch.setattr(process, "status", lambda cfg: {})
    plugin.install_local(cfg, zip_path)
    assert passed["probe"] is security.node_probe
    access.unlink()
    plugin.install_local(cfg, zip_path)
    assert passed["probe"] is None


def test_security_refuses_a_cluster_in_one_line(home):
    from qidf_ctl.engine import security
    from qidf_ctl.errors import UsageError

    cfg = EngineConfig.from_env(engine=f"opensearch-{security.SECURITY_VERSION}", port=9241,
                                nodes=3)
    with pytest.raises(UsageError, match="--security starts a single node"):
        security.check_version(cfg)


@pytest.mark.parametrize(("version", "distribution"), [
    ("8.19.21", "elasticsearch"), ("9.1.0", "elasticsearch"), ("2.19.6", "opensearch"),
    ("3.8.0", "opensearch")])
def test_a_record_from_qidf_0_1_without_its_distribution_keeps_the_engine(
        home, version, distribution):
    """A node.json written before records named their distribution must not turn an
    Elasticsearch node into a request for an OpenSearch zip of the same version."""
    cfg = EngineConfig.from_env(distribution=distribution, port=9301)
    cfg.node_dir.mkdir(parents=True)
    (cfg.node_dir / "node.json").write_text(json.dumps({
        "pid": 1, "port": 9301, "version": version, "url": "http://127.0.0.1:9301",
        "node_dir": str(cfg.node_dir), "started_at": 0.0}))
    restored = process.recorded(EngineConfig.from_env(port=9301))
    assert (restored.distribution, restored.version) == (distribution, version)
