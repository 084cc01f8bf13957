"""qidf's research, kept apart from the product: benchmark corpora built from real code and
prose (``corpora``, ``sources``), the retrieval benchmark's pipeline and report, the speed
and stats benchmarks, and the predictor fit. Installed only for development
(``pip install -e research``); every definition it shares with the product (densities,
predictors, tasks) is imported from ``qidf_ctl``, never copied."""
