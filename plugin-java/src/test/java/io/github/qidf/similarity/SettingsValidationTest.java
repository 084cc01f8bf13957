package io.github.qidf.similarity;

import io.github.qidf.similarity.engine.EngineTestSupport;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invalid settings are rejected, through the engine's own settings object, naming the setting. */
class SettingsValidationTest {

    static Map<String, String> settings(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("type", QLogSimilaritySettings.TYPE);
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    static void rejected(String key, String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> EngineTestSupport.qlog(settings(key, value)), key + "=" + value);
        assertTrue(e.getMessage().contains("[" + key + "]"), "message should name [" + key + "]: " + e.getMessage());
        assertTrue(e.getMessage().contains(value), "message should quote the value: " + e.getMessage());
    }

    @Test
    void badQ() {
        for (String v : new String[] {"-0.1", "2.0001", "NaN", "nan", "Infinity", "-Infinity", "abc", "", "1f", "0x1p0", "1e400"}) {
            rejected("q", v);
        }
    }

    @Test
    void badK1() {
        for (String v : new String[] {"-1", "-0.0001", "Infinity", "NaN", "1e40", "x"}) {
            rejected("k1", v);
        }
    }

    @Test
    void badB() {
        for (String v : new String[] {"-0.1", "1.01", "NaN", "Infinity", "b"}) {
            rejected("b", v);
        }
    }

    @Test
    void badFormAndOverlaps() {
        for (String v : new String[] {"LUCENE", "bm25", "", "rsj "}) {
            rejected("form", v);
        }
        for (String v : new String[] {"yes", "1", "TRUE "}) {
            rejected("discount_overlaps", v);
        }
    }

    @Test
    void badStatsSnapshotKey() {
        for (String v : new String[] {"a b", "a/b", "x#y", "a\tb", "k:1", "x".repeat(256)}) {
            rejected("stats_snapshot", v);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> EngineTestSupport.qlog(settings("stats_snapshot", "")));
        assertTrue(e.getMessage().contains("[stats_snapshot]"), e.getMessage());
    }

    @Test
    void statsSnapshotKeyIsKept() {
        QLogSimilaritySettings s = QLogSimilaritySettings.parse(settings("stats_snapshot", "code-search", "q", "0.3"));
        assertEquals("code-search", s.statsSnapshot());
        assertEquals("code-search", s.newBM25().getSnapshotKey());
        assertEquals(null, QLogSimilaritySettings.parse(settings()).statsSnapshot());
        assertTrue(s.newBM25().toString().contains("stats_snapshot=code-search"));
    }

    @Test
    void unknownKeyIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> EngineTestSupport.qlog(settings("Q", "0.5")));
        assertTrue(e.getMessage().contains("[Q]") && e.getMessage().contains("qlog_bm25"), e.getMessage());
    }

    @Test
    void validEdgesAccepted() {
        String[][] ok = {{"q", "0"}, {"q", "2"}, {"q", "0.05"}, {"q", " 1 "}, {"q", "1.0e0"}, {"k1", "0"}, {"b", "0"}, {"b", "1"},
            {"form", "rsj"}, {"form", "lucene"}, {"discount_overlaps", "false"}};
        for (String[] kv : ok) {
            EngineTestSupport.qlog(settings(kv[0], kv[1]));
        }
        QLogSimilaritySettings s = QLogSimilaritySettings.parse(settings());
        assertEquals(1.0, s.q());
        assertEquals(1.2f, s.k1());
        assertEquals(0.75f, s.b());
        assertEquals(QLog.Form.LUCENE, s.form());
        assertTrue(s.discountOverlaps());
    }

    @Test
    void constructorAlsoGuardsQ() {
        assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(Double.NaN, QLog.Form.LUCENE, 1.2f, 0.75f, true));
        assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(2.5, QLog.Form.LUCENE, 1.2f, 0.75f, true));
    }
}
