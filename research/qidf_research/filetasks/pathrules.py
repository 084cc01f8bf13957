"""Which files stay out of the corpus: those the product's judgments filters call vendored,
generated or lock files (``qidf_ctl.judgments.filters.kind_of``, by path alone), so the
corpus and the judgments skip the same files by the same rules."""

from __future__ import annotations

from qidf_ctl.judgments import filters

EXCLUDED = (filters.VENDORED, filters.GENERATED, filters.LOCK)


def source() -> str:
    """Where the rules come from, for the task's record."""
    return "qidf_ctl.judgments.filters.kind_of: vendored, generated and lock files left out"


def excluded_from_corpus(path: str) -> str | None:
    """Why a file stays out of the corpus ("vendored", "generated", "lock"), or None."""
    kind = filters.kind_of(path)
    return kind if kind in EXCLUDED else None
