"""Measuring retrieval on a live index: query and qrels files, runs, metrics, the paired
bootstrap, the q sweep, and the (function, docstring) retrieval tasks the demo and the
benchmark are made of."""

from qidf_ctl.evaluation.bootstrap import Bootstrap, paired_bootstrap
from qidf_ctl.evaluation.evaluate import DEFAULT_DEPTH, EvalResult, evaluate_index
from qidf_ctl.evaluation.files import (
    Qrels,
    read_qrels,
    read_queries,
    sample_queries,
    write_qrels,
    write_queries,
)
from qidf_ctl.evaluation.pairs import Pair, load_pairs, write_pairs
from qidf_ctl.evaluation.score import DEFAULT_BUDGET, score_run
from qidf_ctl.evaluation.tasks import RetrievalTask, code_to_doc, doc_to_code

__all__ = ["DEFAULT_BUDGET", "DEFAULT_DEPTH", "Bootstrap", "EvalResult", "Pair", "Qrels",
           "RetrievalTask", "code_to_doc", "doc_to_code", "evaluate_index", "load_pairs",
           "paired_bootstrap", "read_qrels", "read_queries", "sample_queries", "score_run",
           "write_pairs", "write_qrels", "write_queries"]
