package io.github.qidf.similarity;

import io.github.qidf.similarity.snapshot.SnapshotKeys;
import io.github.qidf.similarity.snapshot.SnapshotSource;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Parses and validates the index settings of a {@code qlog_bm25} similarity, engine-neutrally
 * (the engine wiring hands over the similarity's settings as a map of strings).
 *
 * <p>Every error is an {@link IllegalArgumentException} whose message names the setting. The
 * engines build the similarity while they validate an index creation or a settings update, so a
 * bad value makes that request fail and never reaches an index's stored settings.
 */
public final class QLogSimilaritySettings {

    /** The similarity type name registered with the engine. */
    public static final String TYPE = "qlog_bm25";

    public static final String Q = "q";
    public static final String K1 = "k1";
    public static final String B = "b";
    public static final String FORM = "form";
    public static final String DISCOUNT_OVERLAPS = "discount_overlaps";
    /** The key of the statistics snapshot the similarity scores with (optional; static, like every key here). */
    public static final String STATS_SNAPSHOT = "stats_snapshot";
    /** The key the engine uses to pick the similarity type; always present, never ours to check. */
    public static final String TYPE_KEY = "type";

    /** The settings this similarity accepts, besides {@code type}. */
    public static final Set<String> KEYS = Collections.unmodifiableSet(
        new LinkedHashSet<>(Arrays.asList(Q, K1, B, FORM, DISCOUNT_OVERLAPS, STATS_SNAPSHOT))
    );

    public static final double DEFAULT_Q = 1.0;
    public static final float DEFAULT_K1 = 1.2f;
    public static final float DEFAULT_B = 0.75f;
    public static final QLog.Form DEFAULT_FORM = QLog.Form.LUCENE;
    public static final boolean DEFAULT_DISCOUNT_OVERLAPS = true;

    private final double q;
    private final QLog.Form form;
    private final float k1;
    private final float b;
    private final boolean discountOverlaps;
    private final String statsSnapshot;

    private QLogSimilaritySettings(double q, QLog.Form form, float k1, float b, boolean discountOverlaps,
                                   String statsSnapshot) {
        this.q = q;
        this.form = form;
        this.k1 = k1;
        this.b = b;
        this.discountOverlaps = discountOverlaps;
        this.statsSnapshot = statsSnapshot;
    }

    /**
     * Parses the similarity's settings (keys relative to {@code index.similarity.<name>.}).
     *
     * @throws IllegalArgumentException naming the offending setting
     */
    public static QLogSimilaritySettings parse(Map<String, String> settings) {
        Set<String> unknown = new TreeSet<>(settings.keySet());
        unknown.removeAll(KEYS);
        unknown.remove(TYPE_KEY);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException(
                "Unknown settings for similarity of type [" + TYPE + "]: " + unknown + "; allowed: " + KEYS
            );
        }

        final double q = parseDouble(settings, Q, DEFAULT_Q);
        if (!QLog.isValidQ(q)) {
            throw invalid(Q, settings.get(Q), "must be a finite number in [" + fmt(QLog.Q_MIN) + ", " + fmt(QLog.Q_MAX) + "]");
        }

        final double k1Double = parseDouble(settings, K1, DEFAULT_K1);
        final float k1 = (float) k1Double;
        if (!Float.isFinite(k1) || !(k1 >= 0f)) {
            throw invalid(K1, settings.get(K1), "must be a finite number >= 0");
        }

        final double bDouble = parseDouble(settings, B, DEFAULT_B);
        final float b = (float) bDouble;
        if (!(b >= 0f && b <= 1f)) {
            throw invalid(B, settings.get(B), "must be a number in [0, 1]");
        }

        final QLog.Form form;
        final String formText = settings.get(FORM);
        if (formText == null) {
            form = DEFAULT_FORM;
        } else if (formText.equals("lucene")) {
            form = QLog.Form.LUCENE;
        } else if (formText.equals("rsj")) {
            form = QLog.Form.RSJ;
        } else {
            throw invalid(FORM, formText, "must be one of [lucene, rsj]");
        }

        final boolean discountOverlaps;
        final String overlapsText = settings.get(DISCOUNT_OVERLAPS);
        if (overlapsText == null) {
            discountOverlaps = DEFAULT_DISCOUNT_OVERLAPS;
        } else if (overlapsText.equals("true")) {
            discountOverlaps = true;
        } else if (overlapsText.equals("false")) {
            discountOverlaps = false;
        } else {
            throw invalid(DISCOUNT_OVERLAPS, overlapsText, "must be true or false");
        }

        final String statsSnapshot = settings.get(STATS_SNAPSHOT);
        if (statsSnapshot != null) {
            String problem = SnapshotKeys.problem(statsSnapshot);
            if (problem != null) {
                throw invalid(STATS_SNAPSHOT, statsSnapshot, problem);
            }
        }

        return new QLogSimilaritySettings(q, form, k1, b, discountOverlaps, statsSnapshot);
    }

    private static double parseDouble(Map<String, String> settings, String key, double defaultValue) {
        final String text = settings.get(key);
        if (text == null) {
            return defaultValue;
        }
        final String trimmed = text.trim();
        // plain decimal numbers only: no hex floats, no Java's "1f"/"1d" suffixes
        if (!trimmed.matches("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?")) {
            if (trimmed.equalsIgnoreCase("nan") || trimmed.matches("(?i)[+-]?inf(inity)?")) {
                throw invalid(key, text, "must be a finite number");
            }
            throw invalid(key, text, "must be a number");
        }
        return Double.parseDouble(trimmed);
    }

    private static IllegalArgumentException invalid(String key, String value, String rule) {
        return new IllegalArgumentException(
            "Invalid setting [" + key + "] for similarity of type [" + TYPE + "]: " + rule + ", got [" + value + "]"
        );
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%d", (long) v) : Double.toString(v);
    }

    /** The plain (unscaled) q-log BM25 with these settings: OpenSearch 3.x's default shape. */
    public QLogBM25Similarity newBM25() {
        return newBM25(SnapshotSource.NONE);
    }

    /** The same, finding its statistics snapshot (if it names one) in {@code snapshots}. */
    public QLogBM25Similarity newBM25(SnapshotSource snapshots) {
        return new QLogBM25Similarity(q, form, k1, b, discountOverlaps, statsSnapshot, snapshots);
    }

    /**
     * The q-log BM25 scaled by {@code (k1 + 1)}: the default shape of OpenSearch 2.x and
     * Elasticsearch (their {@code LegacyBM25Similarity}).
     */
    public LegacyQLogBM25Similarity newLegacyBM25() {
        return newLegacyBM25(SnapshotSource.NONE);
    }

    /** The same, finding its statistics snapshot (if it names one) in {@code snapshots}. */
    public LegacyQLogBM25Similarity newLegacyBM25(SnapshotSource snapshots) {
        return new LegacyQLogBM25Similarity(newBM25(snapshots));
    }

    /** The statistics snapshot's key, or null. */
    public String statsSnapshot() {
        return statsSnapshot;
    }

    public double q() {
        return q;
    }

    public QLog.Form form() {
        return form;
    }

    public float k1() {
        return k1;
    }

    public float b() {
        return b;
    }

    public boolean discountOverlaps() {
        return discountOverlaps;
    }
}
