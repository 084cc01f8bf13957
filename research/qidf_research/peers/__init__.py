"""The peers benchmark: q-log against every similarity the engine already ships.

For each benchmark corpus, every built-in family of OpenSearch (BM25 with tuned k1 and b,
LMDirichlet, LMJelinekMercer, DFR, IB, DFI) and the paper's baselines that run in the engine
(a power-law rescaled IDF as a Painless script, and the parameter-free DFR variants closest
to DPH) are tuned on one half of the queries and reported on the other half, side by side
with q-log (q tuned the same way, the shipped default predictor, and q with k1 and b tuned
jointly). Every number is the engine's: each setting is installed on the corpus's index
(close, update, open) and the engine ranks.

Modules: ``settings`` (one similarity setting and its index settings), ``scripted`` (the
Painless baselines), ``families`` (how each family's settings are searched), ``split`` (the
tuning / held-out split), ``store`` (the per-query cache that lets a run resume), ``measure``
(installing and searching), ``compare`` (choosing on tuning, reporting on held-out, the
paired bootstrap), ``corpora`` (the corpus list), ``report`` (the markdown tables). The
runner is ``qidf_research.bench_peers``.
"""
