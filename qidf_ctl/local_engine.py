"""The embedded local engine: a single OpenSearch node on 127.0.0.1 as a plain process.

Assembled from Maven Central: the integ-test distribution (a runnable OpenSearch without
modules) plus the ``lang-painless`` module (scripted similarity needs it) and
``analysis-common`` (word_delimiter_graph and the other analyzers users have). Those two are
published as plain jars, so this module writes their module folders (descriptor and security
policy) itself. OpenSearch refuses to run as root; when qidf runs as root the node runs as the
unprivileged user ``nobody``.

Elasticsearch's integ-test distribution (``distribution="elasticsearch"``) runs the same way;
it has no Painless and none is published to Maven Central, so on it only the native plugin
path works. It serves the tests that prove qidf on a real Elasticsearch.

Everything of one node lives in one folder: ``<home>/node-<port>/`` holds ``data/``,
``logs/``, ``config/`` and ``node.json`` (pid, url, version).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from .artifacts import Coordinate, direct_dependencies, fetch
from .errors import EngineError
from .progress import Progress, quiet

DEFAULT_VERSION = "2.19.6"
DEFAULT_ES_VERSION = "8.19.21"
DEFAULT_PORT = 9200
DEFAULT_HEAP = "1g"
RUN_AS_WHEN_ROOT = "nobody"




def home_dir() -> Path:
    """QIDF_HOME, else a folder the unprivileged node user can read when we are root."""
    if os.environ.get("QIDF_HOME"):
        return Path(os.environ["QIDF_HOME"]).expanduser()
    if os.geteuid() == 0:
        return Path("/var/lib/qidf")
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "qidf"


def download_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qidf" / "downloads"


@dataclass(frozen=True)
class Flavor:
    """What differs between the two engines' distributions."""

    name: str
    title: str
    main_class: str
    launcher: str
    plugin_tool: str
    env_java: str
    env_conf: str
    env_opts: str
    extra_settings: tuple[str, ...] = ()


FLAVORS = {
    "opensearch": Flavor("opensearch", "OpenSearch", "org.opensearch.bootstrap.OpenSearch",
                         "opensearch", "opensearch-plugin", "OPENSEARCH_JAVA_HOME",
                         "OPENSEARCH_PATH_CONF", "OPENSEARCH_JAVA_OPTS"),
    "elasticsearch": Flavor("elasticsearch", "Elasticsearch",
                            "org.elasticsearch.bootstrap.Elasticsearch", "elasticsearch",
                            "elasticsearch-plugin", "ES_JAVA_HOME", "ES_PATH_CONF",
                            "ES_JAVA_OPTS", ("-Expack.security.enabled=false",)),
}


@dataclass
class EngineConfig:
    """Settings of the local node; each has an environment variable for scripts and CI."""

    version: str = DEFAULT_VERSION
    port: int = DEFAULT_PORT
    heap: str = DEFAULT_HEAP
    java_home: str | None = None
    home: Path | None = None
    distribution: str = "opensearch"

    @property
    def flavor(self) -> Flavor:
        return FLAVORS[self.distribution]

    @classmethod
    def from_env(cls, **overrides: object) -> EngineConfig:
        distribution = str(overrides.get("distribution") or
                           os.environ.get("QIDF_ENGINE_DISTRIBUTION", "opensearch"))
        if distribution not in FLAVORS:
            raise EngineError(
                f"engine distribution must be opensearch or elasticsearch, got {distribution!r}")
        default_version = DEFAULT_VERSION if distribution == "opensearch" else DEFAULT_ES_VERSION
        cfg = cls(
            distribution=distribution,
            version=os.environ.get("QIDF_ENGINE_VERSION", default_version)
            if distribution == "opensearch" else default_version,
            port=int(os.environ.get("QIDF_ENGINE_PORT", DEFAULT_PORT)),
            heap=os.environ.get("QIDF_ENGINE_HEAP", DEFAULT_HEAP),
            java_home=os.environ.get("QIDF_JAVA_HOME") or None,
        )
        for key, value in overrides.items():
            if value is not None:
                setattr(cfg, key, value)
        if not re.fullmatch(r"\d+\.\d+\.\d+", cfg.version):
            raise EngineError(f"engine version must look like 2.19.6, got {cfg.version!r}")
        if not re.fullmatch(r"\d+[mg]", cfg.heap):
            raise EngineError(f"heap must look like 512m or 1g, got {cfg.heap!r}")
        if not 1024 <= cfg.port <= 65535:
            raise EngineError(f"port must be in 1024-65535, got {cfg.port}")
        return cfg

    @property
    def root(self) -> Path:
        return self.home or home_dir()

    @property
    def dist(self) -> Path:
        return self.root / "dist" / f"{self.distribution}-{self.version}"

    @property
    def node_dir(self) -> Path:
        return self.root / f"node-{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class NodeRecord:
    pid: int
    port: int
    version: str
    url: str
    node_dir: str
    started_at: float


# --- Java -------------------------------------------------------------------------------


def _java_major(java: Path) -> int | None:
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java(version: str, explicit: str | None = None, distribution: str = "opensearch"
              ) -> Path:
    """A JAVA_HOME that can run this engine version (OpenSearch 2.x and Elasticsearch 8.x:
    17-23, as they still use the security manager; OpenSearch 3.x, Elasticsearch 9.x: 21+)."""
    major_version = int(version.split(".")[0])
    needed = 21 if major_version >= (3 if distribution == "opensearch" else 9) else 17
    candidates = [explicit, os.environ.get("JAVA_HOME")]
    jvm = Path("/usr/lib/jvm")
    if jvm.is_dir():
        candidates += [str(p) for p in sorted(jvm.iterdir()) if (p / "bin" / "java").exists()]
    on_path = shutil.which("java")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent.parent))
    for cand in candidates:
        if not cand:
            continue
        java = Path(cand) / "bin" / "java"
        major = _java_major(java) if java.exists() else None
        if major is not None and major >= needed and (needed >= 21 or major <= 23):
            return Path(cand)
    raise EngineError(
        f"no Java {needed}+ found for {FLAVORS[distribution].title} {version}: install a JDK "
        f"(e.g. apt-get install openjdk-{needed}-jdk-headless) or set QIDF_JAVA_HOME"
    )


# --- Assembly ---------------------------------------------------------------------------


def _class_in_jar(jar: Path, candidates: list[str]) -> str:
    names = set(zipfile.ZipFile(jar).namelist())
    for cls in candidates:
        if cls.replace(".", "/") + ".class" in names:
            return cls
    raise EngineError(f"{jar.name} has none of the expected plugin classes {candidates}")


def _descriptor(name: str, description: str, classname: str, version: str,
                extended: str = "") -> str:
    return (
        f"description={description}\nversion={version}\nname={name}\nclassname={classname}\n"
        f"java.version=11\nopensearch.version={version}\ncustom.foldername=\n"
        f"extended.plugins={extended}\nhas.native.controller=false\n"
    )


PAINLESS_POLICY = """grant {
  // Painless generates classes at run time
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
"""


def assemble(cfg: EngineConfig, progress: Progress = quiet) -> Path:
    """Download (or reuse) the artifacts and lay out a runnable distribution."""
    if (cfg.dist / ".qidf-assembled").exists():
        return cfg.dist
    if cfg.distribution == "elasticsearch":
        return _assemble_elasticsearch(cfg, progress)
    v = cfg.version
    cache = download_dir() / v
    progress(f"fetching OpenSearch {v} from Maven Central (about 60 MB, cached after)")
    zip_path, painless_jar, common_jar = fetch([
        Coordinate("org.opensearch.distribution.integ-test-zip", "opensearch", v, "zip"),
        Coordinate("org.opensearch.plugin", "lang-painless", v),
        Coordinate("org.opensearch.plugin", "analysis-common", v),
    ], cache, with_poms=True)
    painless_deps = direct_dependencies(cache / f"lang-painless-{v}.pom")
    progress("fetching the lang-painless module's dependencies")
    dep_jars = fetch(painless_deps, cache / "lang-painless-deps")

    def add_modules(unpacked: Path) -> None:
        painless = unpacked / "modules" / "lang-painless"
        painless.mkdir(parents=True)
        for jar in [painless_jar, *dep_jars]:
            shutil.copy2(jar, painless / jar.name)
        (painless / "plugin-descriptor.properties").write_text(_descriptor(
            "lang-painless", "An easy, safe and fast scripting language for OpenSearch",
            _class_in_jar(painless_jar, ["org.opensearch.painless.PainlessModulePlugin",
                                         "org.opensearch.painless.PainlessPlugin"]), v))
        (painless / "plugin-security.policy").write_text(PAINLESS_POLICY)
        common = unpacked / "modules" / "analysis-common"
        common.mkdir(parents=True)
        shutil.copy2(common_jar, common / common_jar.name)
        (common / "plugin-descriptor.properties").write_text(_descriptor(
            "analysis-common", "Adds common analysis components",
            _class_in_jar(common_jar, ["org.opensearch.analysis.common.CommonAnalysisModulePlugin",
                                       "org.opensearch.analysis.common.CommonAnalysisPlugin"]),
            v, extended="lang-painless"))

    return _unpack_into_place(cfg, zip_path, add_modules, progress)


def _assemble_elasticsearch(cfg: EngineConfig, progress: Progress) -> Path:
    v = cfg.version
    progress(f"fetching Elasticsearch {v} (integ-test zip) from Maven Central (about 100 MB)")
    (zip_path,) = fetch([Coordinate("org.elasticsearch.distribution.integ-test-zip",
                                    "elasticsearch", v, "zip")], download_dir() / f"es-{v}")
    return _unpack_into_place(cfg, zip_path, lambda unpacked: None, progress)


def _unpack_into_place(cfg: EngineConfig, zip_path: Path, prepare: Callable[[Path], None],
                       progress: Progress) -> Path:
    """Unpack in a staging folder, let ``prepare`` add to it, then move it into place: a
    half-assembled distribution is never mistaken for a finished one."""
    staging = cfg.dist.parent / f".staging-{cfg.distribution}-{cfg.version}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    progress("unpacking")
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(staging)
    unpacked = staging / f"{cfg.distribution}-{cfg.version}"
    for folder in (unpacked / "bin", unpacked / "lib" / "tools"):
        for script in folder.rglob("*") if folder.exists() else []:
            if script.is_file():
                script.chmod(0o755)
    prepare(unpacked)
    shutil.rmtree(cfg.dist, ignore_errors=True)
    unpacked.rename(cfg.dist)
    shutil.rmtree(staging, ignore_errors=True)
    _make_readable(cfg.root)
    (cfg.dist / ".qidf-assembled").write_text(json.dumps({"version": cfg.version}))
    return cfg.dist


def _make_readable(path: Path) -> None:
    """The node user must traverse the qidf home even when root created it."""
    for p in [path, *path.parents]:
        if p == Path("/"):
            break
        try:
            if p.stat().st_uid == os.geteuid():
                p.chmod(p.stat().st_mode | 0o005)
        except OSError:
            pass


# --- Process control --------------------------------------------------------------------


def _record_path(cfg: EngineConfig) -> Path:
    return cfg.node_dir / "node.json"


def read_record(cfg: EngineConfig) -> NodeRecord | None:
    try:
        return NodeRecord(**json.loads(_record_path(cfg).read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _is_our_node(pid: int, node_dir: Path) -> bool:
    """True only for a live engine process started with this node's folder."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return False
    engine = any(f.main_class in cmdline for f in FLAVORS.values())
    return engine and str(node_dir) in cmdline


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _health(url: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"{url}/_cluster/health", timeout=2) as resp:
            return json.loads(resp.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None


def status(cfg: EngineConfig) -> dict:
    """What runs where: for ``qidf engine status`` and for scripts."""
    rec = read_record(cfg)
    running = bool(rec and _is_our_node(rec.pid, cfg.node_dir))
    health = _health(cfg.url) if running else None
    return {
        "running": running,
        "url": cfg.url,
        "pid": rec.pid if running and rec else None,
        "version": rec.version if rec else cfg.version,
        "health": health.get("status") if health else None,
        "node_dir": str(cfg.node_dir),
        "logs": str(cfg.node_dir / "logs"),
        "installed": (cfg.dist / ".qidf-assembled").exists(),
    }


def _chown_tree(path: Path, user: str) -> None:
    import pwd

    entry = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        os.chown(root, entry.pw_uid, entry.pw_gid)
        for name in dirs + files:
            os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid, follow_symlinks=False)


def start(cfg: EngineConfig, progress: Progress = quiet, timeout_s: float = 180) -> dict:
    """Start the node (assembling it first if needed) and wait until it is at least yellow."""
    current = status(cfg)
    if current["running"]:
        return {**current, "already_running": True}
    if _port_in_use(cfg.port):
        raise EngineError(
            f"port {cfg.port} on 127.0.0.1 is already in use by another process: "
            "stop it, or pick another port with --port / QIDF_ENGINE_PORT"
        )
    java_home = find_java(cfg.version, cfg.java_home, cfg.distribution)
    dist = assemble(cfg, progress)
    node = cfg.node_dir
    for sub in ("data", "logs"):
        (node / sub).mkdir(parents=True, exist_ok=True)
    config = node / "config"
    if not config.exists():
        shutil.copytree(dist / "config", config)
        _point_jvm_files_at(config / "jvm.options", node)
    jvm_heap = config / "jvm.options.d" / "qidf-heap.options"
    jvm_heap.parent.mkdir(exist_ok=True)
    jvm_heap.write_text(f"-Xms{cfg.heap}\n-Xmx{cfg.heap}\n")
    run_as = RUN_AS_WHEN_ROOT if os.geteuid() == 0 else None
    if run_as:
        _make_readable(cfg.root)
        _chown_tree(node, run_as)
    flavor = cfg.flavor
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(node),
        "JAVA_HOME": str(java_home),
        flavor.env_java: str(java_home),
        flavor.env_conf: str(config),
        # The node folder on the JVM's command line lets `stop` recognise this node.
        flavor.env_opts: f"-Dqidf.node.dir={node} "
        + os.environ.get("QIDF_ENGINE_JAVA_OPTS", ""),
    }
    pid_file = node / "engine.pid"
    pid_file.unlink(missing_ok=True)
    args = [
        str(dist / "bin" / flavor.launcher), *flavor.extra_settings,
        "-Ediscovery.type=single-node", "-Enetwork.host=127.0.0.1",
        f"-Ehttp.port={cfg.port}", "-Etransport.port=" + str(cfg.port + 100),
        f"-Epath.data={node / 'data'}", f"-Epath.logs={node / 'logs'}",
        f"-Enode.name=qidf-{cfg.port}", "-Ecluster.name=qidf-local",
        "-Eaction.auto_create_index=true",
        "-p", str(pid_file),
    ]
    progress(f"starting {flavor.title} {cfg.version} on {cfg.url}")
    console = open(node / "logs" / "console.log", "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(
        args, env=env, cwd=str(node), stdout=console, stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL, start_new_session=True, user=run_as,
    )
    console.close()
    record = NodeRecord(proc.pid, cfg.port, cfg.version, cfg.url, str(node), time.time())
    _record_path(cfg).write_text(json.dumps(asdict(record)))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise EngineError(
                f"{flavor.title} exited during start (code {proc.returncode}): "
                f"{_last_error(node)}; full log in {node / 'logs'}"
            )
        health = _health(cfg.url)
        if health and health.get("status") in ("green", "yellow"):
            _adopt_java_pid(cfg, record, pid_file)
            return {**status(cfg), "already_running": False}
        time.sleep(0.5)
    stop(cfg)
    raise EngineError(
        f"{flavor.title} did not become ready within {timeout_s:.0f}s; log in {node / 'logs'}"
    )


def _point_jvm_files_at(jvm_options: Path, node: Path) -> None:
    """The stock jvm.options writes GC logs, heap dumps and crash files relative to the
    distribution; send them to this node's folder, which the node user can write."""
    text = jvm_options.read_text()
    text = text.replace("file=logs/", f"file={node}/logs/")
    text = text.replace("-XX:ErrorFile=logs/", f"-XX:ErrorFile={node}/logs/")
    text = text.replace("-XX:HeapDumpPath=data", f"-XX:HeapDumpPath={node}/data")
    jvm_options.write_text(text)


def _adopt_java_pid(cfg: EngineConfig, record: NodeRecord, pid_file: Path) -> None:
    """Record the JVM's own pid (the launcher script may not exec into it)."""
    try:
        record.pid = int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return
    _record_path(cfg).write_text(json.dumps(asdict(record)))


def _last_error(node: Path) -> str:
    try:
        lines = (node / "logs" / "console.log").read_text(errors="replace").splitlines()
    except OSError:
        return "no console output"
    for line in reversed(lines):
        if "Exception" in line or "ERROR" in line or "error" in line:
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "no console output"


def stop(cfg: EngineConfig, timeout_s: float = 60) -> bool:
    """Stop this node (by its recorded pid) and nothing else; False when it was not running."""
    rec = read_record(cfg)
    if rec is None or not _is_our_node(rec.pid, cfg.node_dir):
        return False
    os.kill(rec.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _is_our_node(rec.pid, cfg.node_dir):
            break
        time.sleep(0.3)
    else:
        os.kill(rec.pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(rec.pid, os.WNOHANG)
    return True
