package io.github.qidf.similarity.snapshot;

import io.github.qidf.similarity.QLog;
import io.github.qidf.similarity.QLogBM25Similarity;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A term the snapshot does not hold: with {@code min_doc_freq} 2 (terms of one document left out)
 * it is scored with the shard's df and the snapshot's N; with 1 (every term kept: it is new)
 * with the shard's df and N. N never falls below the shard's own.
 */
class NewTermFallbackTest {

    static StatisticsSnapshot snapshot(int minDocFreq, long docCount) throws IOException {
        FieldStatisticsBuilder b = new FieldStatisticsBuilder("body");
        b.add(new BytesRef("known"), 40);
        FieldTermStatistics f = b.build(docCount, docCount, docCount * 10, docCount * 5);
        return new StatisticsSnapshot("k", 1, 0, "i", "u", minDocFreq, Map.of("body", f));
    }

    static double idf(QLogBM25Similarity sim, CollectionStatistics c, String term, long df) {
        return sim.idfExplain(c, new TermStatistics(new BytesRef(term), df, df)).getValue().doubleValue();
    }

    @Test
    void absentTermsFollowWhatAbsenceMeans() throws IOException {
        CollectionStatistics shard = new CollectionStatistics("body", 300, 300, 3000, 1500);
        for (int minDf : List.of(1, 2)) {
            StatisticsSnapshot snap = snapshot(minDf, 1000);
            QLogBM25Similarity sim = new QLogBM25Similarity(0.3, QLog.Form.LUCENE, 1.2f, 0.75f, true, "k", key -> snap);
            assertEquals((float) QLog.idf(0.3, 1000, 40, QLog.Form.LUCENE), idf(sim, shard, "known", 7), 0.0);
            long n = minDf == 1 ? 300 : 1000;
            assertEquals((float) QLog.idf(0.3, n, 3, QLog.Form.LUCENE), idf(sim, shard, "fresh", 3), 0.0);
        }
        // a shard that outgrew the snapshot: N is never below its own, so n <= N
        StatisticsSnapshot small = snapshot(2, 100);
        QLogBM25Similarity sim = new QLogBM25Similarity(0.3, QLog.Form.LUCENE, 1.2f, 0.75f, true, "k", key -> small);
        CollectionStatistics grown = new CollectionStatistics("body", 5000, 5000, 50000, 25000);
        assertEquals((float) QLog.idf(0.3, 5000, 900, QLog.Form.LUCENE), idf(sim, grown, "fresh", 900), 0.0);
    }
}
