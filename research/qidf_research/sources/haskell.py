"""The haskell corpus (issue 36's added languages): pinned packages in sources.json, pairs
by corpora/haskell.py. Called by pinned.corpus_path("haskell", log) through its EXTRA_LANGUAGES
dispatch."""

from __future__ import annotations

from qidf_ctl.evaluation.pairs import Pair
from qidf_research.corpora import haskell as language
from qidf_research.corpora.extract import BuildStats
from qidf_research.sources.pinned import Log
from qidf_research.sources.snapshots import build


def pairs(log: Log, stats: BuildStats) -> list[Pair]:
    return build(language.LANGUAGE, language.haskell_functions, language.EXTENSIONS,
                 language.KEYWORDS, log, stats)
