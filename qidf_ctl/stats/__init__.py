"""Corpus statistics of a text field, read from a running cluster: exact or sampled.

The façade: ``index_stats`` measures, ``FieldStats``/``IndexStats`` hold the result, and
``densities`` holds the one definition of every hapax density.
"""

from qidf_ctl.stats.collect import DEFAULT_SAMPLE, DF_NOTE, EXACT_LIMIT, IndexStats, index_stats
from qidf_ctl.stats.densities import DENSITIES, NAMES, DocCounts, densities, per_doc
from qidf_ctl.stats.design import Stratified, draw
from qidf_ctl.stats.fields import FieldStats
from qidf_ctl.stats.histogram import DfBin, df_bins, histogram

__all__ = ["DEFAULT_SAMPLE", "DENSITIES", "DF_NOTE", "EXACT_LIMIT", "NAMES", "DfBin",
           "DocCounts", "FieldStats", "IndexStats", "Stratified", "densities", "df_bins",
           "draw", "histogram", "index_stats", "per_doc"]
