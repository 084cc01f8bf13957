package io.github.qidf.similarity;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

import java.util.Locale;

/**
 * Lucene's BM25 with the q-log IDF of {@link QLog}.
 *
 * <p>Only {@link #idf(long, long)} and {@link #idfExplain(CollectionStatistics, TermStatistics)}
 * change: norms, the length cache and {@code BM25Similarity.scorer} (final) are Lucene's, so every
 * query-time optimisation of BM25 (block-max WAND, impacts) keeps working. The IDF is a per-term
 * constant folded into the scorer's weight, so the score stays non-decreasing in term frequency
 * and non-increasing in document length for every q.
 *
 * <p>At {@code q = 1, form = lucene} this returns, float for float, what {@link BM25Similarity}
 * returns.
 */
public class QLogBM25Similarity extends BM25Similarity {

    private final double q;
    private final QLog.Form form;

    /**
     * @param q the q of the q-logarithm, in [0, 2]; 1 is plain BM25
     * @param form which odds the q-logarithm is applied to
     * @param k1 BM25 k1 (non-negative, finite)
     * @param b BM25 b, in [0, 1]
     * @param discountOverlaps whether overlap tokens (position increment 0) are left out of the length
     * @throws IllegalArgumentException on a parameter outside its domain
     */
    public QLogBM25Similarity(double q, QLog.Form form, float k1, float b, boolean discountOverlaps) {
        super(k1, b, discountOverlaps);
        if (!QLog.isValidQ(q)) {
            throw new IllegalArgumentException(
                "illegal q value: " + q + ", must be a finite number in [" + QLog.Q_MIN + ", " + QLog.Q_MAX + "]"
            );
        }
        if (form == null) {
            throw new IllegalArgumentException("form must not be null");
        }
        this.q = q;
        this.form = form;
    }

    /** The q of the q-logarithm. */
    public final double getQ() {
        return q;
    }

    /** Which odds the q-logarithm is applied to. */
    public final QLog.Form getForm() {
        return form;
    }

    @Override
    protected float idf(long docFreq, long docCount) {
        return (float) QLog.idf(q, docCount, docFreq, form);
    }

    @Override
    public Explanation idfExplain(CollectionStatistics collectionStats, TermStatistics termStats) {
        final long df = termStats.docFreq();
        final long docCount = collectionStats.docCount();
        final float idf = idf(df, docCount);
        final String formula = form == QLog.Form.LUCENE
            ? "ln_q(1 + (N - n + 0.5) / (n + 0.5))"
            : "max(0, ln_q((N - n + 0.5) / (n + 0.5)))";
        return Explanation.match(
            idf,
            "idf, computed as q-log " + formula + " with ln_q(x) = (x^(1-q) - 1) / (1 - q), q = " + q
                + ", form = " + form.settingValue() + ", from:",
            Explanation.match(df, "n, number of documents containing term"),
            Explanation.match(docCount, "N, total number of documents with field"),
            Explanation.match(q, "q, the q-logarithm parameter (1 = plain BM25)")
        );
    }

    @Override
    public String toString() {
        return String.format(
            Locale.ROOT,
            "QLogBM25(q=%s, form=%s, k1=%s, b=%s, discount_overlaps=%s)",
            q,
            form.settingValue(),
            getK1(),
            getB(),
            getDiscountOverlaps()
        );
    }
}
