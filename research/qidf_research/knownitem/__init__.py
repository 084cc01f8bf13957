"""Choosing q by measuring rankings on the index itself: simulated known-item queries built
from the index's own documents and calibrated to a real, unlabeled query sample
(benchmarks/retrieval/predictor.md, "Measured q").

Modules: ``matrix`` (a task's index as a sparse term matrix, read from the engine once and
cached), ``scorer`` (Lucene's BM25 and q-log BM25 offline, checked against the engine's
sweep curves), ``tasks`` (the benchmark's tasks and query samples as matrices).
"""
