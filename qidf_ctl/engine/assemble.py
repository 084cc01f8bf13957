"""Assembling a runnable distribution from Maven Central artifacts.

OpenSearch's integ-test distribution is a runnable OpenSearch without most modules; 2.x
lacks ``lang-painless`` (scripted similarity needs it) and ``analysis-common``
(word_delimiter_graph and the other analyzers users have). Those two are published as plain
jars, so their module folders (descriptor and security policy) are written here; a
distribution that already ships them (3.x) keeps its own. Elasticsearch's integ-test zip
has no Painless and none is published, so only the native plugin path works on it.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

from qidf_ctl.engine.artifacts import Coordinate, direct_dependencies, fetch
from qidf_ctl.engine.config import EngineConfig, download_dir
from qidf_ctl.errors import EngineError
from qidf_ctl.progress import Progress, quiet


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
    (zip_path,) = fetch([
        Coordinate("org.opensearch.distribution.integ-test-zip", "opensearch", v, "zip")], cache)
    missing = _missing_modules(zip_path, f"opensearch-{v}", ("lang-painless", "analysis-common"))
    if not missing:
        return _unpack_into_place(cfg, zip_path, lambda unpacked: None, progress)
    painless_jar, common_jar = fetch([
        Coordinate("org.opensearch.plugin", "lang-painless", v),
        Coordinate("org.opensearch.plugin", "analysis-common", v),
    ], cache, with_poms=True)
    painless_deps = direct_dependencies(cache / f"lang-painless-{v}.pom")
    progress("fetching the lang-painless module's dependencies")
    dep_jars = fetch(painless_deps, cache / "lang-painless-deps")

    def add_modules(unpacked: Path) -> None:
        if "lang-painless" in missing:
            painless = unpacked / "modules" / "lang-painless"
            painless.mkdir(parents=True)
            for jar in [painless_jar, *dep_jars]:
                shutil.copy2(jar, painless / jar.name)
            (painless / "plugin-descriptor.properties").write_text(_descriptor(
                "lang-painless", "An easy, safe and fast scripting language for OpenSearch",
                _class_in_jar(painless_jar, ["org.opensearch.painless.PainlessModulePlugin",
                                             "org.opensearch.painless.PainlessPlugin"]), v))
            (painless / "plugin-security.policy").write_text(PAINLESS_POLICY)
        if "analysis-common" in missing:
            common = unpacked / "modules" / "analysis-common"
            common.mkdir(parents=True)
            shutil.copy2(common_jar, common / common_jar.name)
            (common / "plugin-descriptor.properties").write_text(_descriptor(
                "analysis-common", "Adds common analysis components",
                _class_in_jar(common_jar, [
                    "org.opensearch.analysis.common.CommonAnalysisModulePlugin",
                    "org.opensearch.analysis.common.CommonAnalysisPlugin"]),
                v, extended="lang-painless"))

    return _unpack_into_place(cfg, zip_path, add_modules, progress)


def _missing_modules(zip_path: Path, top: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of ``names`` the distribution zip does not ship itself."""
    with zipfile.ZipFile(zip_path) as zf:
        present = {n.split("/")[2] for n in zf.namelist()
                   if n.startswith(f"{top}/modules/") and n.count("/") >= 3}
    return tuple(n for n in names if n not in present)


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
    make_readable(cfg.root)
    (cfg.dist / ".qidf-assembled").write_text(json.dumps({"version": cfg.version}))
    return cfg.dist


def make_readable(path: Path, home: Path | None = None) -> None:
    """The node user must traverse the qidf home even when root created it: ``path`` and the
    folders between it and ``home`` (the qidf home; default ``path`` itself) get o+rx when
    qidf's user owns them. Never a folder above the home: those belong to someone else,
    and ``node_user`` refuses, naming the chmod, instead of widening them."""
    top = Path(os.path.abspath(home if home is not None else path))
    for p in [Path(os.path.abspath(path)), *Path(os.path.abspath(path)).parents]:
        if p != top and top not in p.parents:
            break
        try:
            if p.stat().st_uid == os.geteuid():
                p.chmod(p.stat().st_mode | 0o005)
        except OSError:
            pass
