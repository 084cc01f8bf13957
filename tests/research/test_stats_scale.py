"""The 1M-document scale benchmark's documents: real functions repeated, every id distinct."""

from __future__ import annotations

from collections import Counter

from qidf_research.stats_scale import scale_docs


def test_repeats_every_function_then_samples_with_distinct_ids():
    base = [(f"f{i}", f"code {i}") for i in range(9)] + [("f0#2", "code of f0#2")]
    docs = list(scale_docs(base, 25))
    ids = [d for d, _ in docs]
    assert len(docs) == 25 and len(set(ids)) == 25
    assert ids[:10] == [i for i, _ in base]  # "f0#2" is a real id: copies must not clash
    assert ids[10:20] == [f"copy2:{i}" for i, _ in base]
    assert all(i.startswith("copy3:") for i in ids[20:])
    texts = Counter(t for _, t in docs)
    assert set(texts.values()) <= {2, 3} and sum(v == 3 for v in texts.values()) == 5
    assert list(scale_docs(base, 25)) == docs  # seeded
