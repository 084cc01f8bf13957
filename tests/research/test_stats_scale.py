"""The 1M-document scale benchmark's documents: real functions, a seeded half repeated,
every id distinct."""

from __future__ import annotations

from collections import Counter

from qidf_research.stats_scale import scale_docs


def test_half_stays_unique_the_other_half_repeats_with_distinct_ids():
    base = [(f"f{i}", f"code {i}") for i in range(9)] + [("f0#2", "code of f0#2")]
    docs = list(scale_docs(base, 27))
    ids = [d for d, _ in docs]
    assert len(docs) == 27 and len(set(ids)) == 27  # "f0#2" is a real id: no clash
    assert ids[:10] == [i for i, _ in base]
    assert all(i.startswith(("copy2:", "copy3:", "copy4:", "copy5:")) for i in ids[10:])
    times = Counter(t for _, t in docs)
    assert sum(v == 1 for v in times.values()) == 5  # the unique half
    assert sorted(v for v in times.values() if v > 1) == [4, 4, 4, 5, 5]
    assert list(scale_docs(base, 27)) == docs  # seeded
