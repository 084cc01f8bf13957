package io.github.qidf.similarity;

import org.apache.lucene.index.FieldInvertState;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.Similarity;

/**
 * The q-log BM25 scaled by {@code (k1 + 1)}, built exactly like the engines' own
 * {@code LegacyBM25Similarity} (OpenSearch 2.x: {@code org.apache.lucene.misc.search.similarity},
 * Elasticsearch 8: {@code org.elasticsearch.lucene.similarity}): a {@link Similarity} that wraps a
 * BM25 instance, delegates the norms to it and multiplies the query boost by {@code (1 + k1)} in
 * float before handing it to the BM25 scorer. Same float operations in the same order, so at
 * {@code q = 1} the scores are bit-identical to the engine default.
 */
public final class LegacyQLogBM25Similarity extends Similarity {

    private final QLogBM25Similarity bm25Similarity;

    /** Wraps the given q-log BM25. */
    public LegacyQLogBM25Similarity(QLogBM25Similarity bm25Similarity) {
        super(bm25Similarity.getDiscountOverlaps());
        this.bm25Similarity = bm25Similarity;
    }

    @Override
    public long computeNorm(FieldInvertState state) {
        return bm25Similarity.computeNorm(state);
    }

    @Override
    public SimScorer scorer(float boost, CollectionStatistics collectionStats, TermStatistics... termStats) {
        return bm25Similarity.scorer(boost * (1 + bm25Similarity.getK1()), collectionStats, termStats);
    }

    /** The wrapped, unscaled q-log BM25. */
    public QLogBM25Similarity getBM25Similarity() {
        return bm25Similarity;
    }

    /** BM25 k1. */
    public float getK1() {
        return bm25Similarity.getK1();
    }

    /** BM25 b. */
    public float getB() {
        return bm25Similarity.getB();
    }

    /** The q of the q-logarithm. */
    public double getQ() {
        return bm25Similarity.getQ();
    }

    @Override
    public String toString() {
        return "Legacy" + bm25Similarity + " (scores times k1 + 1)";
    }
}
