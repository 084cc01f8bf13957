"""Fetching engine artifacts from Maven Central with Maven itself.

Maven is the ordinary client for Maven Central: it honours the user's mirrors and proxies
(~/.m2/settings.xml), verifies each download's checksum (``--strict-checksums``), and caches
everything in the local repository, so a second engine install needs no network. On top of
Maven's checks, the default engine version's files are compared with SHA-256 sums pinned here.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.errors import EngineError

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.6.1"

# SHA-256 of the artifacts of the engine versions CI runs, recorded when each was first tested.
PINNED_SHA256 = {
    # Elasticsearch 9.5.3 (the engine matrix): Maven Central has no checksum files for it.
    "elasticsearch-9.5.3.zip": "bec49f3b8d00e75c8d1cec85c35298635ec9fbd3ae80ef5aeb6bc05abdb3db2d",
    "opensearch-2.19.6.zip": "71d6d8b1c637f3faecda0752b184b1cc526fc6eaad59ec1408c6327bb00b9293",
    "lang-painless-2.19.6.jar": "e71e6c7ef99a6f5958cd0b25367acf472cc52cd49d29e13084c5ff0b5931f717",
    "analysis-common-2.19.6.jar":
        "187378844d92a043b935038f9ae168f7812f686b1c1c7128f8b97731baff8a1a",
    "opensearch-scripting-painless-spi-2.19.6.jar":
        "84e545b968151739f1915cfd2db24bf873edfd317d2848b87b61d0d60ec70869",
    "antlr4-runtime-4.13.1.jar": "54665d2838cc66458343468efc539e454fc95b46a8a04b13c6ac43fc9be63505",
    "asm-9.7.jar": "adf46d5e34940bdf148ecdd26a9ee8eea94496a72034ff7141066b3eea5c4e9d",
    "asm-analysis-9.7.jar": "7bc6bcbc21379948a0c8c467fb0f864206e5b818f6bc0b546872f5c9f941556f",
    "asm-commons-9.7.jar": "389bc247958e049fc9a0408d398c92c6d370c18035120395d4cba1d9d9304b7a",
    "asm-tree-9.7.jar": "62f4b3bc436045c1acb5c3ba2d8ec556ec3369093d7f5d06c747eb04b56d52b1",
    "asm-util-9.7.jar": "37a6414d36641973f1af104937c95d6d921b2ddb4d612c66c5a9f2b13fc14211",
}


@dataclass(frozen=True)
class Coordinate:
    group: str
    artifact: str
    version: str
    type: str = "jar"

    @property
    def filename(self) -> str:
        return f"{self.artifact}-{self.version}.{self.type}"


def _pom(deps: list[Coordinate]) -> str:
    items = "".join(
        f"<dependency><groupId>{d.group}</groupId><artifactId>{d.artifact}</artifactId>"
        f"<version>{d.version}</version><type>{d.type}</type></dependency>"
        for d in deps
    )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>qidf.local</groupId><artifactId>engine-fetch</artifactId><version>0</version>"
        f"<dependencies>{items}</dependencies></project>"
    )


def mvn_executable() -> str:
    mvn = shutil.which("mvn")
    if not mvn:
        raise EngineError(
            "Maven (mvn) not found: the local engine is fetched from Maven Central with it; "
            "install it (e.g. apt-get install maven) and run again"
        )
    return mvn


def fetch(deps: list[Coordinate], dest: Path, *, with_poms: bool = False) -> list[Path]:
    """Copy ``deps`` (not their transitive dependencies) into ``dest``; return their paths.

    Tries Maven offline first (everything cached: no network), then online.
    """
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qidf-mvn-") as tmp:
        pom = Path(tmp) / "pom.xml"
        pom.write_text(_pom(deps))
        base = [
            mvn_executable(), "-B", "-q", checksum_policy(deps), "-f", str(pom),
            f"{DEPENDENCY_PLUGIN}:copy-dependencies", "-DexcludeTransitive=true",
            f"-DoutputDirectory={dest}", f"-Dmdep.copyPom={'true' if with_poms else 'false'}",
        ]
        offline = subprocess.run([*base, "-o"], capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL)
        if offline.returncode != 0:
            online = subprocess.run(base, capture_output=True, text=True,
                                    stdin=subprocess.DEVNULL)
            if online.returncode != 0:
                lines = [ln for ln in (online.stdout + online.stderr).splitlines()
                         if "ERROR" in ln]
                detail = lines[0][:300] if lines else "see `mvn` output"
                raise EngineError(
                    "download from Maven Central failed "
                    f"({', '.join(d.filename for d in deps)}): {detail}. Check the network "
                    "or your Maven mirror settings (~/.m2/settings.xml), then run again"
                )
    paths = [dest / d.filename for d in deps]
    for path in paths:
        verify(path)
    return paths


def checksum_policy(deps: list[Coordinate]) -> str:
    """Maven's own checksums must be there and match, unless every file has a pinned SHA-256
    (checked after the download, whatever Maven found)."""
    pinned = all(d.filename in PINNED_SHA256 for d in deps)
    return "--lax-checksums" if deps and pinned else "--strict-checksums"


def verify(path: Path) -> None:
    """Compare with the pinned SHA-256, where one is pinned (Maven checked its own sums)."""
    expected = PINNED_SHA256.get(path.name)
    if not path.is_file():
        raise EngineError(f"expected {path} after the download, but it is missing")
    if expected is None:
        return
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        path.unlink(missing_ok=True)
        raise EngineError(
            f"checksum mismatch for {path.name} (got {digest[:12]}..., pinned {expected[:12]}...): "
            "the corrupt file was deleted; run again to download it anew"
        )


def direct_dependencies(pom_path: Path) -> list[Coordinate]:
    """Compile/runtime dependencies declared in a published POM."""
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    root = ET.parse(pom_path).getroot()
    deps = []
    for dep in root.findall("m:dependencies/m:dependency", ns):
        scope = dep.findtext("m:scope", "compile", ns)
        if scope not in ("compile", "runtime"):
            continue
        deps.append(Coordinate(
            dep.findtext("m:groupId", "", ns), dep.findtext("m:artifactId", "", ns),
            dep.findtext("m:version", "", ns), dep.findtext("m:type", "jar", ns),
        ))
    return deps
