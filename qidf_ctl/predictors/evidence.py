"""Statistics as a predictor's evidence: each with its own name and definition, taken from
the one place that defines it (stats.densities, stats.text_shape, stats.query_sample)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from qidf_ctl.errors import QidfError
from qidf_ctl.predictors.base import Evidence
from qidf_ctl.stats.densities import DENSITIES, NAMES
from qidf_ctl.stats.text_shape import DEFINITIONS as SHAPES

if TYPE_CHECKING:
    from qidf_ctl.stats import FieldStats
    from qidf_ctl.stats.text_shape import TextShape


def density(field_stats: FieldStats, key: str) -> Evidence:
    """A hapax density of the field; a field without tokens has none to predict from."""
    value = field_stats.densities.get(key, math.nan)
    if not math.isfinite(value):
        raise QidfError(f"field {field_stats.field!r} has no tokens: no density to predict from")
    interval = field_stats.intervals.get(key)
    return Evidence(value, NAMES[key], DENSITIES[key],
                    tuple(interval) if interval else None)  # type: ignore[arg-type]


def code_like(shape: TextShape, of: str) -> Evidence:
    """The share of sampled texts that look like code (``of``: "documents" or "queries")."""
    name, definition = SHAPES["code_like_share"]
    return Evidence(shape.code_like_share, f"{name} ({of}, {shape.texts:,} sampled)",
                    definition, shape.code_like_interval)


def plain(value: float, name: str, definition: str) -> Evidence:
    return Evidence(float(value), name, definition)
