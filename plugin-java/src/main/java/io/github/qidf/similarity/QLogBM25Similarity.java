package io.github.qidf.similarity;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

import io.github.qidf.similarity.snapshot.FieldTermStatistics;
import io.github.qidf.similarity.snapshot.SnapshotSource;
import io.github.qidf.similarity.snapshot.StatisticsSnapshot;

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
 *
 * <p>With a statistics snapshot named ({@code stats_snapshot}), the statistics a scorer is built
 * from are the snapshot's where it has them: the field's N (documents with the field) and average
 * length always, and the term's df when the snapshot holds the term. A term it does not hold is
 * new since it was taken, and is scored with the shard's own df and N; or, when the snapshot
 * leaves out terms of one document ({@code min_doc_freq} 2), it may be one of those, whose df
 * on the one shard holding it is the index's: the shard's df with the snapshot's N. So a plain
 * search scores with index-wide statistics, as {@code dfs_query_then_fetch} does, without the
 * dfs round trip. {@code BM25Similarity.scorer} (final) reads the statistics only through
 * {@link #idfExplain(CollectionStatistics, TermStatistics)} and {@link #avgFieldLength}, which
 * is where the substitution happens; the snapshot is looked up in memory (the node's cache),
 * never read from disk or the network on the search thread.
 */
public class QLogBM25Similarity extends BM25Similarity {

    private final double q;
    private final QLog.Form form;
    private final String snapshotKey; // null: the shard's statistics, always
    private final SnapshotSource snapshots;
    // explain texts, made once: idfExplain runs for every term of every scorer of every shard
    private final String explainShard;
    private final String explainSnapshot;
    private final String explainShardDf;
    private final String explainNewTerm;

    /**
     * @param q the q of the q-logarithm, in [0, 2]; 1 is plain BM25
     * @param form which odds the q-logarithm is applied to
     * @param k1 BM25 k1 (non-negative, finite)
     * @param b BM25 b, in [0, 1]
     * @param discountOverlaps whether overlap tokens (position increment 0) are left out of the length
     * @throws IllegalArgumentException on a parameter outside its domain
     */
    public QLogBM25Similarity(double q, QLog.Form form, float k1, float b, boolean discountOverlaps) {
        this(q, form, k1, b, discountOverlaps, null, SnapshotSource.NONE);
    }

    /**
     * @param snapshotKey the statistics snapshot to score with (null: none)
     * @param snapshots where the snapshot is found (the node's cache)
     */
    public QLogBM25Similarity(double q, QLog.Form form, float k1, float b, boolean discountOverlaps,
                              String snapshotKey, SnapshotSource snapshots) {
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
        this.snapshotKey = snapshotKey;
        this.snapshots = snapshots == null ? SnapshotSource.NONE : snapshots;
        final String formula = form == QLog.Form.LUCENE
            ? "ln_q(1 + (N - n + 0.5) / (n + 0.5))"
            : "max(0, ln_q((N - n + 0.5) / (n + 0.5)))";
        final String head = "idf, computed as q-log " + formula + " with ln_q(x) = (x^(1-q) - 1) / (1 - q), q = " + q
            + ", form = " + form.settingValue();
        this.explainShard = head + ", from:";
        this.explainSnapshot = head + "; n and N from the statistics snapshot " + snapshotKey + ", from:";
        this.explainShardDf = head + "; n from this shard (term not in the statistics snapshot " + snapshotKey
            + "), N from the snapshot, from:";
        this.explainNewTerm = head + "; n and N from this shard (term new since the statistics snapshot " + snapshotKey
            + "), from:";
    }

    /** The statistics snapshot this similarity scores with, or null. */
    public final String getSnapshotKey() {
        return snapshotKey;
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

    /** The snapshot's statistics of {@code field}, or null (no snapshot named, not loaded, or no such field). */
    private FieldTermStatistics snapshotOf(String field) {
        if (snapshotKey == null) {
            return null;
        }
        StatisticsSnapshot snapshot = snapshots.get(snapshotKey);
        return snapshot == null ? null : snapshot.field(field);
    }

    @Override
    protected float avgFieldLength(CollectionStatistics collectionStats) {
        FieldTermStatistics fromSnapshot = snapshotOf(collectionStats.field());
        if (fromSnapshot == null) {
            return super.avgFieldLength(collectionStats);
        }
        // the expression of BM25Similarity.avgFieldLength, on the index-wide sums
        return (float) (fromSnapshot.sumTotalTermFreq() / (double) fromSnapshot.docCount());
    }

    @Override
    public Explanation idfExplain(CollectionStatistics collectionStats, TermStatistics termStats) {
        long df = termStats.docFreq();
        long docCount = collectionStats.docCount();
        String description = explainShard;
        StatisticsSnapshot snapshot = snapshotKey == null ? null : snapshots.get(snapshotKey);
        FieldTermStatistics fromSnapshot = snapshot == null ? null : snapshot.field(collectionStats.field());
        if (fromSnapshot != null) {
            long snapshotDf = fromSnapshot.docFreq(termStats.term());
            if (snapshotDf > 0) {
                df = snapshotDf;
                docCount = fromSnapshot.docCount();
                description = explainSnapshot;
            } else if (snapshot.minDocFreq() > 1) {
                // Left out of the snapshot: in one document when it was taken (the shard's df
                // is then the index's), or new. The shard's df with the snapshot's N, never
                // below the shard's own N, so that n <= N holds however much was added.
                docCount = Math.max(fromSnapshot.docCount(), docCount);
                description = explainShardDf;
            } else {
                // The snapshot holds every term it saw: this one is new since; the shard's own
                // df and N estimate its share of the index.
                description = explainNewTerm;
            }
        }
        final float idf = idf(df, docCount);
        return Explanation.match(
            idf,
            description,
            Explanation.match(df, "n, number of documents containing term"),
            Explanation.match(docCount, "N, total number of documents with field"),
            Explanation.match(q, "q, the q-logarithm parameter (1 = plain BM25)")
        );
    }

    @Override
    public String toString() {
        return String.format(
            Locale.ROOT,
            "QLogBM25(q=%s, form=%s, k1=%s, b=%s, discount_overlaps=%s%s)",
            q,
            form.settingValue(),
            getK1(),
            getB(),
            getDiscountOverlaps(),
            snapshotKey == null ? "" : ", stats_snapshot=" + snapshotKey
        );
    }
}
