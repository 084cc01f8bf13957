package io.github.qidf.similarity.opensearch;

import io.github.qidf.similarity.QLogSimilaritySettings;
import io.github.qidf.similarity.snapshot.SnapshotSource;

import org.apache.lucene.search.similarities.Similarity;
import org.opensearch.Version;
import org.opensearch.common.settings.Settings;

import java.util.HashMap;
import java.util.Map;

/**
 * Builds a {@code qlog_bm25} similarity from an index's {@code index.similarity.<name>} settings,
 * in the shape of this OpenSearch's default similarity so that q = 1 scores exactly like it:
 * OpenSearch 2.x's default is {@code LegacyBM25Similarity} (BM25 times k1 + 1), 3.x's is plain
 * Lucene {@code BM25Similarity}.
 */
public final class QLogSimilarityProvider {

    private QLogSimilarityProvider() {}

    /** True when this node's default similarity is the (k1 + 1)-scaled legacy BM25. */
    public static boolean engineDefaultIsLegacy() {
        return Version.CURRENT.major < 3;
    }

    /**
     * @throws IllegalArgumentException naming the offending setting; the engine then refuses the
     *     index creation or settings update
     */
    public static Similarity create(Settings settings) {
        return create(settings, SnapshotSource.NONE);
    }

    /**
     * The same, finding the statistics snapshot its settings may name ({@code stats_snapshot}) in
     * {@code snapshots}, the node's cache.
     */
    public static Similarity create(Settings settings, SnapshotSource snapshots) {
        Map<String, String> values = new HashMap<>();
        for (String key : settings.keySet()) {
            values.put(key, settings.get(key));
        }
        QLogSimilaritySettings parsed = QLogSimilaritySettings.parse(values);
        return engineDefaultIsLegacy() ? parsed.newLegacyBM25(snapshots) : parsed.newBM25(snapshots);
    }
}
