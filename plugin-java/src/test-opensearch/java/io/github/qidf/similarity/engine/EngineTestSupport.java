package io.github.qidf.similarity.engine;

import io.github.qidf.similarity.opensearch.QLogSimilarityPlugin;
import io.github.qidf.similarity.opensearch.QLogSimilarityProvider;

import io.github.qidf.similarity.snapshot.SnapshotSource;

import org.apache.lucene.search.similarities.Similarity;
import org.opensearch.Version;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.similarity.SimilarityService;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/** The engine-specific side of the tests, OpenSearch edition (same API in test-elasticsearch). */
public final class EngineTestSupport {

    private EngineTestSupport() {}

    public static String engineName() {
        return "OpenSearch " + Version.CURRENT;
    }

    public static Class<?> pluginClass() {
        return QLogSimilarityPlugin.class;
    }

    /** True when the engine's default similarity is the (k1 + 1)-scaled LegacyBM25Similarity. */
    public static boolean defaultIsLegacy() {
        return QLogSimilarityProvider.engineDefaultIsLegacy();
    }

    /**
     * The similarity the engine uses for fields that name none: read from the engine's own
     * (private) SimilarityService.DEFAULTS table, exactly as SimilarityService builds it.
     */
    @SuppressWarnings("unchecked")
    public static Similarity engineDefault() throws ReflectiveOperationException {
        Field defaults = SimilarityService.class.getDeclaredField("DEFAULTS");
        defaults.setAccessible(true);
        Map<String, Function<Version, Supplier<Similarity>>> table =
            (Map<String, Function<Version, Supplier<Similarity>>>) defaults.get(null);
        return table.get(SimilarityService.DEFAULT_SIMILARITY).apply(Version.CURRENT).get();
    }

    /** The engine's built-in BM25 type with these settings (what "type": "BM25" gives). */
    public static Similarity engineBM25(Map<String, String> settings) {
        return SimilarityService.BUILT_IN.get("BM25").apply(settingsOf(settings), Version.CURRENT, null);
    }

    /** Our similarity, built the way the engine builds it from index settings. */
    public static Similarity qlog(Map<String, String> settings) {
        return QLogSimilarityProvider.create(settingsOf(settings));
    }

    /** Our similarity with a statistics snapshot source, as the plugin builds it on a node. */
    public static Similarity qlog(Map<String, String> settings, SnapshotSource snapshots) {
        return QLogSimilarityProvider.create(settingsOf(settings), snapshots);
    }

    /** The engine's own sanity checks on a similarity (SimilarityService.validateSimilarity). */
    public static void validate(Similarity similarity) throws Throwable {
        Method m = SimilarityService.class.getDeclaredMethod("validateSimilarity", Version.class, Similarity.class);
        m.setAccessible(true);
        try {
            m.invoke(null, Version.CURRENT, similarity);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Settings settingsOf(Map<String, String> settings) {
        Settings.Builder builder = Settings.builder();
        settings.forEach(builder::put);
        return builder.build();
    }
}
