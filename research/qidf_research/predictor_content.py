"""The large-prose study (predictor.md, "Prose at production size"): the content rule and its
variants fitted on the training tasks, left one language out, then read on held-out corpora.

Families (the written protocol's):
  F1 content   q_c if the document sample is clearly code; on a clearly-text field, q_q if
               the query sample is clearly code; q = 1 otherwise (and without queries)
  F2           F1 + a gate on one size-free corpus statistic for text fields without queries
  F3           F1 with q_q in two levels split on one analysed query statistic
Every number is read off the engine's sweep curves (worse grid neighbour), like
predictor_fit; the rule shipped is then measured end to end by the benchmark.
"""

from __future__ import annotations

from qidf_research.content_fitting import study


def main() -> None:
    import json

    from qidf_research.paths import BENCHMARKS

    results = json.loads((BENCHMARKS / "retrieval" / "results.json").read_text())
    print(json.dumps(study(results), indent=1, default=float))


if __name__ == "__main__":
    main()
