"""The demo: real Go code under the generic ``standard`` analyzer, BM25 against q-log."""

from qidf_ctl.demo.corpus import shipped_corpus
from qidf_ctl.demo.run import DEMO_INDEX, DemoResult, DemoRow, load_task, run_demo

__all__ = ["DEMO_INDEX", "DemoResult", "DemoRow", "load_task", "run_demo", "shipped_corpus"]
