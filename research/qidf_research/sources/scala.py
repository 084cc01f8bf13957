"""Scala corpus: Scaladoc'd functions from pinned Maven Central ``-sources.jar``s.

Scala is a language the benchmark holds out (no predictor is fitted on it), so its corpus
must come from real code alone: the published source jars of the standard library
(2.13 and Scala 3's additions), the compiler, and well-documented libraries (Typelevel,
ZIO, Pekko, Spark, ...), pinned in benchmarks/retrieval/sources.json under ``scala-maven``
as [groupId:artifactId, version, license]. Only open-source licences are pinned (Akka 2.7+
is BUSL, so Pekko stands in for it). Each jar is fetched once with ``mvn dependency:copy``
(classifier ``sources``, through corpus_sources.fetch_maven, which also checks the pinned
license against the jar's META-INF/LICENSE when it ships one) and cached under
.qidf/sources/maven.

Called by corpus_sources.corpus_path("scala", log) through its EXTRA_LANGUAGES dispatch.
"""

from __future__ import annotations

import json

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora.extract import BuildStats
from qidf_research.corpora.scala import build_scala_archives
from qidf_research.sources.pinned import PINS, Log, fetch_maven

PIN_KEY = "scala-maven"


def pins() -> list[tuple[str, str, str]]:
    """(groupId:artifactId, version, license) of every pinned source jar."""
    return [(c, v, lic) for c, v, lic in json.loads(PINS.read_text())[PIN_KEY]["packages"]]


def pairs(log: Log, stats: BuildStats) -> list[Pair]:
    """Every pinned jar's pairs, deduplicated together under the CodeSearchNet rules; each
    pair keeps its jar's ``groupId:artifactId``, version and license."""
    pkgs = [fetch_maven(coord, version, lic, log) for coord, version, lic in pins()]
    return build_scala_archives(pkgs, stats)


if __name__ == "__main__":
    from qidf_research.sources.pinned import corpus_path

    print(corpus_path("scala", print))
