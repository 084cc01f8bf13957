"""A secured local OpenSearch: the security plugin, TLS from a private CA, users and roles.

``qidf engine start --security`` (and the secured test fixture) run OpenSearch with TLS on
both layers, internal users with bcrypt hashes, the roles qidf documents, and three more
ways to log in than a password: a client certificate (mutual TLS), a JWT bearer token, and
the admin certificate. Everything is made here, once per node folder; the secrets land in
files (mode 0600) under ``<node>/qidf-security/``, and only their paths are ever printed.

The plugin zip is ``org.opensearch.plugin:opensearch-security:<version>.0`` from Maven
Central. For 2.19.1 Central has the zip but no POM, checksum files or metadata entry, so
Maven's ``--strict-checksums`` refuses it: it is fetched without, and its SHA-256 pinned
here. It is installed once into a copy of the distribution made of hard links
(``dist/opensearch-<v>-security``), and from there linked into the node's own distribution
copy (``node-<port>/dist/plugins``, see engine/layout.py): installed into the shared one, it
would load into every plain node of that version, which then would not start without
certificates. The plugin and the node's config/ persist, so a restart by another command
(``qidf plugin install``) starts the node secured again; it only needs ``node_probe``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from qidf_ctl.cluster.roles import opensearch_roles
from qidf_ctl.engine import process
from qidf_ctl.engine.artifacts import DEPENDENCY_PLUGIN, mvn_executable
from qidf_ctl.engine.certificates import CertificateAuthority
from qidf_ctl.engine.config import EngineConfig, download_dir
from qidf_ctl.engine.java import find_java
from qidf_ctl.engine.layout import NodeSpec
from qidf_ctl.errors import EngineError, UsageError, missing_extra
from qidf_ctl.progress import Progress, quiet

GROUP = "org.opensearch.plugin"
# Engine version -> (plugin version, SHA-256 of its zip). Central serves the 2.19.1.0 zip with
# no checksum of its own; this one was recorded when it was first fetched and tested.
PLUGINS = {
    "2.19.1": ("2.19.1.0", "94a04f12ac6033902209fac1e4e512618d45beee604bbf0e42c3ed79c55220cf"),
}
SECURITY_VERSION = "2.19.1"
ACCESS_DIR = "qidf-security"
ADMIN = "admin"


@dataclass
class User:
    """An internal user; ``password`` None means a random one, written to a file."""

    name: str
    roles: list[str]
    password: str | None = field(default=None, repr=False)


@dataclass
class SecuritySpec:
    """Who may log in, and with which roles."""

    users: list[User]
    index_patterns: list[str] = field(default_factory=lambda: ["*"])
    cert_users: dict[str, list[str]] = field(default_factory=dict)  # client cert CN -> roles
    jwt_roles: dict[str, list[str]] = field(default_factory=dict)  # JWT "roles" claim -> roles
    host_names: tuple[str, ...] = ()  # extra DNS names in the node certificate
    extra_roles: dict[str, dict[str, Any]] = field(default_factory=dict)
    bcrypt_rounds: int = 12


def default_spec() -> SecuritySpec:
    """``admin`` (all_access) and ``qidf`` (the documented least-privilege roles)."""
    return SecuritySpec([User(ADMIN, ["all_access"]),
                         User("qidf", ["qidf_operator", "qidf_auto_mode", "qidf_clone"])])


@dataclass
class Access:
    """How to reach a secured node (``<node>/qidf-security/access.json``): paths only."""

    url: str
    ca_certs: str
    password_files: dict[str, str]
    client_cert: str = ""
    client_key: str = ""
    cert_user: str = ""
    jwt_key_file: str = ""
    node_sha256: str = ""
    admin_cert: str = ""
    admin_key: str = ""

    def password(self, user: str) -> str:
        return Path(self.password_files[user]).read_text(encoding="utf-8").rstrip("\n")

    @classmethod
    def load(cls, node_dir: Path) -> Access:
        return cls(**json.loads((node_dir / ACCESS_DIR / "access.json").read_text()))


def check_version(cfg: EngineConfig) -> None:
    if cfg.distribution != "opensearch" or cfg.version not in PLUGINS:
        known = ", ".join(f"opensearch-{v}" for v in sorted(PLUGINS))
        raise UsageError(f"--security needs an engine whose security plugin is on Maven "
                         f"Central and pinned here: {known} (got {cfg.spelling})")
    if cfg.nodes > 1:
        raise UsageError("--security starts a single node (one private CA per node folder): "
                         "leave out --nodes, or start a plain cluster without --security")


def plugin_zip(cfg: EngineConfig, progress: Progress = quiet) -> Path:
    """The security plugin zip, through Maven (mirrors and proxies honoured), SHA-256 checked."""
    plugin_version, sha256 = PLUGINS[cfg.version]
    dest = download_dir() / cfg.version
    target = dest / f"opensearch-security-{plugin_version}.zip"
    if not target.is_file():
        progress(f"fetching opensearch-security {plugin_version} from Maven Central")
        dest.mkdir(parents=True, exist_ok=True)
        base = [mvn_executable(), "-B", "-q", f"{DEPENDENCY_PLUGIN}:copy",
                f"-Dartifact={GROUP}:opensearch-security:{plugin_version}:zip",
                f"-DoutputDirectory={dest}"]
        for args in ([*base, "-o"], base):  # offline first: no network when cached
            done = subprocess.run(args, cwd=dest, capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                break
        else:
            lines = [ln for ln in (done.stdout + done.stderr).splitlines() if "ERROR" in ln]
            raise EngineError(f"download of opensearch-security {plugin_version} failed: "
                              f"{(lines or ['see mvn output'])[0][:300]}")
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    if digest != sha256:
        target.unlink()
        raise EngineError(f"checksum mismatch for {target.name} (got {digest[:12]}..., pinned "
                          f"{sha256[:12]}...): deleted; run again to download it anew")
    return target


def secured_dist(cfg: EngineConfig, dist: Path, progress: Progress = quiet) -> Path:
    """``dist`` plus the security plugin, as a hard-linked copy beside it (made once)."""
    target = dist.parent / f"{dist.name}-security"
    if (target / ".qidf-assembled").exists():
        return target
    zip_path = plugin_zip(cfg, progress)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(dist, target, copy_function=os.link, symlinks=True)
    java_home = str(find_java(cfg.version, cfg.java_home, cfg.distribution))
    progress("installing the security plugin")
    env = {**os.environ, "JAVA_HOME": java_home, "OPENSEARCH_JAVA_HOME": java_home,
           "OPENSEARCH_PATH_CONF": str(target / "config")}
    done = subprocess.run([str(target / "bin" / "opensearch-plugin"), "install", "--batch",
                           zip_path.resolve().as_uri()], env=env, capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        shutil.rmtree(target, ignore_errors=True)
        detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EngineError(f"opensearch-plugin install of the security plugin failed: {detail}")
    return target


def _bcrypt(password: str, rounds: int) -> str:
    try:
        import bcrypt
    except ImportError:
        raise missing_extra("a secured local engine (--security)", "security",
                            "bcrypt") from None
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds)).decode()


def _auth_config(jwt_key_b64: str) -> dict[str, Any]:
    """JWT (order 0), client certificate (1), then HTTP basic against the internal users
    (2, the only one that challenges, so it comes last)."""
    def domain(order: int, authenticator: dict[str, Any], backend: str) -> dict[str, Any]:
        return {"http_enabled": True, "transport_enabled": backend == "intern", "order": order,
                "http_authenticator": authenticator,
                "authentication_backend": {"type": backend}}

    return {"_meta": {"type": "config", "config_version": 2}, "config": {"dynamic": {
        "http": {"anonymous_auth_enabled": False, "xff": {"enabled": False}},
        "authc": {
            "jwt_auth_domain": domain(0, {"type": "jwt", "challenge": False, "config": {
                "signing_key": jwt_key_b64, "jwt_header": "Authorization",
                "subject_key": "sub", "roles_key": "roles",
                "jwt_clock_skew_tolerance_seconds": 30}}, "noop"),
            "clientcert_auth_domain": domain(1, {"type": "clientcert", "challenge": False,
                                                 "config": {"username_attribute": "cn"}},
                                             "noop"),
            "basic_internal_auth_domain": domain(2, {"type": "basic", "challenge": True},
                                                 "intern"),
        }, "authz": {}}}}


def _node_settings(node_dn: str, admin_dn: str) -> dict[str, Any]:
    return {
        "plugins.security.ssl.transport.pemcert_filepath": "certs/node.pem",
        "plugins.security.ssl.transport.pemkey_filepath": "certs/node-key.pem",
        "plugins.security.ssl.transport.pemtrustedcas_filepath": "certs/root-ca.pem",
        "plugins.security.ssl.transport.enforce_hostname_verification": False,
        "plugins.security.ssl.http.enabled": True,
        "plugins.security.ssl.http.pemcert_filepath": "certs/node.pem",
        "plugins.security.ssl.http.pemkey_filepath": "certs/node-key.pem",
        "plugins.security.ssl.http.pemtrustedcas_filepath": "certs/root-ca.pem",
        # A client certificate is asked for and checked when given (mutual TLS users),
        # password and token users connect without one.
        "plugins.security.ssl.http.clientauth_mode": "OPTIONAL",
        "plugins.security.authcz.admin_dn": [admin_dn],
        "plugins.security.nodes_dn": [node_dn],
        # The security index is written from config/opensearch-security/ at the first start.
        "plugins.security.allow_default_init_securityindex": True,
        "plugins.security.restapi.roles_enabled": ["all_access"],
        "plugins.security.system_indices.enabled": True,
        "plugins.security.audit.type": "noop",
    }


def _write_secret(path: Path, text: str) -> str:
    path.write_text(text + "\n", encoding="utf-8")
    path.chmod(0o600)
    return str(path)


def configure(node_dir: Path, port: int, spec: SecuritySpec) -> Access:
    """Certificates, security YAML and opensearch.yml for the node in ``node_dir`` (whose
    ``config/`` holds a copy of the secured distribution's); idempotent."""
    access_dir = node_dir / ACCESS_DIR
    if (access_dir / "access.json").exists():
        return Access.load(node_dir)
    config = node_dir / "config"
    access_dir.mkdir(parents=True, exist_ok=True)
    access_dir.chmod(0o700)
    ca = CertificateAuthority(config / "certs")
    node = ca.issue("node", f"node-{port}.qidf.local", server=True, names=spec.host_names)
    admin = ca.issue("admin", "qidf-admin")
    client_cn = next(iter(spec.cert_users), "")
    client = ca.issue("client", client_cn) if client_cn else None
    shutil.copy(ca.path, access_dir / "ca.pem")
    passwords = {u.name: u.password or secrets.token_urlsafe(18) for u in spec.users}
    jwt_key = secrets.token_bytes(32)
    write_yaml(config / "opensearch-security", spec, passwords,
               base64.b64encode(jwt_key).decode())
    with open(config / "opensearch.yml", "a", encoding="utf-8") as fh:
        fh.write("\n# --- security (qidf engine start --security) ---\n")
        for key, value in _node_settings(node.dn, admin.dn).items():
            fh.write(f"{key}: {json.dumps(value)}\n")
    access = Access(
        url=f"https://127.0.0.1:{port}", ca_certs=str(access_dir / "ca.pem"),
        password_files={name: _write_secret(access_dir / f"{name}.password", pw)
                        for name, pw in passwords.items()},
        client_cert=str(client.cert) if client else "",
        client_key=str(client.key) if client else "", cert_user=client_cn,
        jwt_key_file=_write_secret(access_dir / "jwt.key",
                                   base64.b64encode(jwt_key).decode()),
        node_sha256=node.sha256, admin_cert=str(admin.cert), admin_key=str(admin.key))
    (access_dir / "access.json").write_text(json.dumps(asdict(access), indent=1))
    _tighten(config)
    return access


def write_yaml(folder: Path, spec: SecuritySpec, passwords: dict[str, str],
               jwt_key_b64: str) -> None:
    """config, internal_users, roles and roles_mapping (JSON text: the plugin's YAML reader
    takes it); the plugin's other files stay as shipped."""
    users: dict[str, Any] = {"_meta": {"type": "internalusers", "config_version": 2}}
    mapping: dict[str, Any] = {"_meta": {"type": "rolesmapping", "config_version": 2}}

    def grant(role: str, kind: str, who: str) -> None:
        entry = mapping.setdefault(role, {"users": [], "backend_roles": [], "hosts": []})
        entry[kind].append(who)

    for user in spec.users:
        users[user.name] = {"hash": _bcrypt(passwords[user.name], spec.bcrypt_rounds),
                            "reserved": user.name == ADMIN, "backend_roles": [],
                            "description": "qidf local user"}
        for role in user.roles:
            grant(role, "users", user.name)
    for cn, roles in spec.cert_users.items():
        for role in roles:
            grant(role, "users", cn)
    for backend, roles in spec.jwt_roles.items():
        for role in roles:
            grant(role, "backend_roles", backend)
    role_defs = {"_meta": {"type": "roles", "config_version": 2},
                 **{name: {"reserved": False, **body} for name, body in
                    {**opensearch_roles(spec.index_patterns), **spec.extra_roles}.items()}}
    for name, body in (("config.yml", _auth_config(jwt_key_b64)),
                       ("internal_users.yml", users), ("roles.yml", role_defs),
                       ("roles_mapping.yml", mapping)):
        (folder / name).write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n",
                                   encoding="utf-8")


def _tighten(config: Path) -> None:
    """0700 folders and 0600 files under config/: the plugin warns at start otherwise."""
    for root, _dirs, files in os.walk(config):
        os.chmod(root, 0o700)
        for name in files:
            os.chmod(os.path.join(root, name), 0o600)


def health_probe(node_dir: Path) -> Callable[[], dict | None]:
    """``_cluster/health`` over TLS as the admin, for ``process.start``: None until the node
    answers (and while the security index is being written: 503)."""
    def probe() -> dict | None:
        try:
            access = Access.load(node_dir)
            token = base64.b64encode(f"{ADMIN}:{access.password(ADMIN)}".encode()).decode()
            req = urllib.request.Request(f"{access.url}/_cluster/health",
                                         headers={"Authorization": f"Basic {token}"})
            ctx = ssl.create_default_context(cafile=access.ca_certs)
            with urllib.request.urlopen(req, timeout=2, context=ctx) as resp:
                return json.loads(resp.read())  # type: ignore[no-any-return]
        except (OSError, ValueError, KeyError, urllib.error.URLError):
            return None
    return probe


def node_probe(node: NodeSpec) -> dict | None:
    """``health_probe`` of one node of a local cluster, as ``process.start`` calls it."""
    return health_probe(node.node_dir)()


def start(cfg: EngineConfig, spec: SecuritySpec | None = None,
          progress: Progress = quiet, timeout_s: float = 240) -> tuple[dict, Access]:
    """Start a secured node (``process.start`` with a hook that secures it first)."""
    check_version(cfg)
    spec = spec or default_spec()

    def prepare(node: NodeSpec, settings: dict[str, str], step: Progress) -> None:
        # Into the node's own distribution and config/: both persist, so a restart by another
        # command (a rolling plugin install) starts the node secured again.
        secured = secured_dist(cfg, cfg.dist, step)
        plugin = node.dist / "plugins" / "opensearch-security"
        if not plugin.is_dir():
            shutil.copytree(secured / "plugins" / "opensearch-security", plugin,
                            copy_function=os.link, symlinks=True)
        if not (node.config / "opensearch-security").is_dir():
            shutil.copytree(secured / "config" / "opensearch-security",
                            node.config / "opensearch-security")
        configure(node.node_dir, node.port, spec)

    info = process.start(cfg, progress, timeout_s, prepare=[prepare], probe=node_probe)
    return info, Access.load(cfg.node_dir)
