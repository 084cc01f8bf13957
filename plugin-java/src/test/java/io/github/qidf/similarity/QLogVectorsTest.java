package io.github.qidf.similarity;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Checks {@link QLog#idf} against the shared vectors in {@code tests/vectors/qlog_idf.json} (the
 * same file the Python tests read, by relative path from plugin-java, not a copy).
 */
class QLogVectorsTest {

    static final double REL_TOL = 1e-12;
    static final double ABS_TOL = 1e-15;

    static Path vectorsPath() {
        String prop = System.getProperty("qidf.vectors");
        Path p = prop != null ? Paths.get(prop) : Paths.get("..", "tests", "vectors", "qlog_idf.json");
        assertTrue(Files.isRegularFile(p), "shared test vectors not found at " + p.toAbsolutePath());
        return p;
    }

    /** The "vectors" array as a list of flat objects (values: String, Long, Double, BigDecimal-as-text). */
    static List<Map<String, Object>> readVectors() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        try (InputStream in = Files.newInputStream(vectorsPath());
             JsonParser p = new JsonFactory().createParser(in)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                if (!"vectors".equals(field)) {
                    p.skipChildren();
                    continue;
                }
                assertEquals(JsonToken.START_ARRAY, t);
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        JsonToken v = p.nextToken();
                        switch (v) {
                            case VALUE_NUMBER_INT: row.put(key, p.getLongValue()); break;
                            case VALUE_NUMBER_FLOAT: row.put(key, p.getDoubleValue()); break;
                            case VALUE_STRING: row.put(key, p.getText()); break;
                            default: p.skipChildren(); row.put(key, null);
                        }
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }

    static double num(Object o) {
        return ((Number) o).doubleValue();
    }

    @Test
    void everySharedVectorMatches() throws IOException {
        List<Map<String, Object>> vectors = readVectors();
        assertTrue(vectors.size() >= 100, "expected many vectors, got " + vectors.size());
        List<String> failures = new ArrayList<>();
        for (Map<String, Object> v : vectors) {
            double q = num(v.get("q"));
            long n = ((Number) v.get("N")).longValue();
            long df = ((Number) v.get("n")).longValue();
            QLog.Form form = QLog.Form.valueOf(((String) v.get("form")).toUpperCase(java.util.Locale.ROOT));
            // the 30-digit text is the reference; the double "idf" must agree with it too
            double expected = new BigDecimal((String) v.get("idf_text")).doubleValue();
            assertEquals(expected, num(v.get("idf")), Math.max(REL_TOL * Math.abs(expected), ABS_TOL), "file inconsistent: " + v);
            double got = QLog.idf(q, n, df, form);
            double err = Math.abs(got - expected);
            if (!(err <= Math.max(REL_TOL * Math.abs(expected), ABS_TOL))) {
                failures.add(v + " -> got " + got + " (abs err " + err + ")");
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + vectors.size() + " vectors off:\n" + String.join("\n", failures));
        }
        System.out.println("QLogVectorsTest: " + vectors.size() + " shared vectors within rel " + REL_TOL);
    }

    @Test
    void qOneIsLuceneIdfExactly() {
        long[][] stats = {{1, 1}, {10, 1}, {10, 10}, {1000, 37}, {182440, 2}, {Integer.MAX_VALUE, 12345}};
        for (long[] s : stats) {
            double lucene = Math.log(1 + (s[0] - s[1] + 0.5D) / (s[1] + 0.5D));
            assertEquals(Double.doubleToLongBits(lucene), Double.doubleToLongBits(QLog.idf(1.0, s[0], s[1], QLog.Form.LUCENE)));
        }
    }

    @Test
    void nearOneIsContinuous() {
        for (double q : new double[] {1 - 1e-15, 1 - 1e-12, 1 + 1e-12, 1 + 1e-15}) {
            double a = QLog.idf(q, 182440, 3, QLog.Form.LUCENE);
            double b = QLog.idf(1.0, 182440, 3, QLog.Form.LUCENE);
            assertEquals(b, a, 1e-9 * b, "q=" + q);
        }
    }

    @Test
    void rsjIsFlooredAtZeroAndNeverNaN() {
        for (double q : new double[] {0, 0.05, 0.3, 0.7, 1, 1.5, 2}) {
            assertEquals(0.0, QLog.idf(q, 10, 6, QLog.Form.RSJ));
            assertEquals(0.0, QLog.idf(q, 10, 10, QLog.Form.RSJ));
            assertEquals(0.0, QLog.idf(q, 10, 20, QLog.Form.RSJ)); // df > N: odds < 0
            assertTrue(QLog.idf(q, 10, 1, QLog.Form.RSJ) > 0);
        }
    }
}
