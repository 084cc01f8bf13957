"""Per-term boosts that turn built-in BM25 into q-log BM25 for one query.

BM25 scores a term as ``boost * idf(n, N) * tf_part(freq, length)``: the IDF enters only as a
factor, beside the clause boost. A clause boosted by ``count(t) * idf_q(t) / idf_bm25(t)``
therefore scores ``count(t) * idf_q(t) * tf_part``, which is what the installed q-log
similarity scores for the same term repeated ``count(t)`` times. What the ratio leaves alone
is everything else BM25 does: k1, b and the norms are the index's own (whatever they are),
and the factor (k1 + 1) of Elasticsearch's and OpenSearch 2.x's LegacyBM25 multiplies both
sides, so the boosts are the same on every engine and BM25 variant.

Both IDFs come from the one formula, ``qidf_ctl.formula.idf``: ``idf_bm25`` is its q = 1,
``lucene`` form, Lucene's own BM25 IDF. A token the index has never seen (df 0) matches no
document; it keeps the ratio 1, as BM25 would score it. At q = 1 (``lucene`` form) every
ratio is exactly 1.0, so the query is the plain BM25 query, bit for bit.

The same holds over a field that already scores with q-log (``base``: its installed q and
form): both the Painless weight script and the plugin multiply their IDF by the clause
boost, so ``idf_q / idf_base`` turns the installed q into any other, q = 1 (BM25) included.
A term the base scores 0 (the ``rsj`` form past n = N/2) keeps 0: no boost can scale it.
"""

from __future__ import annotations

from collections.abc import Mapping

from qidf_ctl.formula import IdfForm, idf
from qidf_ctl.querytime.statistics import TermStats

Base = tuple[float, IdfForm]  # the q and form a field already scores with
BM25: Base = (1.0, IdfForm.LUCENE)


def idf_ratio(q: float, doc_count: int, doc_freq: int,
              form: IdfForm | str = IdfForm.LUCENE, base: Base = BM25) -> float:
    """``idf_q / idf_base`` of a term in ``doc_freq`` of ``doc_count`` documents (``base``:
    BM25 unless the field scores with q-log); 1 when the term occurs nowhere (nothing to
    rescale) or the base scores it 0."""
    if doc_freq <= 0 or doc_count <= 0:
        return 1.0
    below = idf(base[0], doc_count, doc_freq, base[1])
    if below <= 0.0:
        return 1.0
    return idf(q, doc_count, doc_freq, form) / below


def ratios(stats: TermStats, q: float, form: IdfForm | str = IdfForm.LUCENE,
           base: Base = BM25) -> dict[str, float]:
    """The IDF ratio of every term ``stats`` holds: computed once per q when many queries
    share terms (a sweep)."""
    form = IdfForm(form)
    return {t: idf_ratio(q, stats.doc_count, n, form, base) for t, n in stats.df.items()}


def boosts(counts: Mapping[str, int], stats: TermStats, q: float,
           form: IdfForm | str = IdfForm.LUCENE,
           ratio: Mapping[str, float] | None = None, base: Base = BM25) -> dict[str, float]:
    """``count(t) * idf_q(t) / idf_base(t)`` for every distinct token of the query
    (``ratio``: the ratios already computed for these statistics and q)."""
    if ratio is None:
        ratio = ratios(TermStats(stats.doc_count, {t: stats.of(t) for t in counts}), q, form,
                       base)
    return {t: float(c) * ratio.get(t, 1.0) for t, c in counts.items()}
