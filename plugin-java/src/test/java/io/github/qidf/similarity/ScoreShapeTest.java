package io.github.qidf.similarity;

import io.github.qidf.similarity.engine.EngineTestSupport;

import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.search.similarities.Similarity.SimScorer;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * For every q in the grid and both forms: scores are finite, never negative, non-decreasing in
 * term frequency, non-increasing in document length (what keeps block-max WAND exact and what the
 * engines check), explain equals score, and the engine's own similarity validation passes.
 */
class ScoreShapeTest {

    static final double[] QS = {0, 0.05, 0.3, 0.7, 1, 1.5, 2};
    static final String[] FORMS = {"lucene", "rsj"};
    static final long[] DOC_COUNTS = {1, 10, 1000, 182440};
    static final float[] BOOSTS = {1f, 7.5f};

    static List<Similarity> grid() {
        List<Similarity> out = new ArrayList<>();
        for (double q : QS) {
            for (String form : FORMS) {
                Map<String, String> s = new HashMap<>();
                s.put("q", Double.toString(q));
                s.put("form", form);
                out.add(EngineTestSupport.qlog(s));          // the engine's shape (legacy or plain)
                out.add(QLogSimilaritySettings.parse(s).newBM25());
                out.add(QLogSimilaritySettings.parse(s).newLegacyBM25());
                s.put("k1", "0");
                s.put("b", "0");
                out.add(QLogSimilaritySettings.parse(s).newBM25());
                s.put("k1", "3.5");
                s.put("b", "1");
                out.add(QLogSimilaritySettings.parse(s).newLegacyBM25());
            }
        }
        return out;
    }

    static float[] freqs() {
        List<Float> f = new ArrayList<>();
        for (float x = 0.25f; x < 1f; x += 0.25f) {
            f.add(x); // sloppy phrase frequencies can be fractional
        }
        for (int i = 1; i <= 40; i++) {
            f.add((float) i);
        }
        f.add(64f);
        f.add(1000f);
        f.add(10_000f);
        f.add(1e7f);
        float[] out = new float[f.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = f.get(i);
        }
        return out;
    }

    @Test
    void monotoneNonNegativeAndExplainEqualsScore() {
        float[] freqs = freqs();
        long checks = 0;
        List<String> failures = new ArrayList<>();
        for (Similarity sim : grid()) {
            for (long n : DOC_COUNTS) {
                for (long df : new long[] {1, 2, Math.max(1, n / 10), Math.max(1, n / 2), Math.min(n, n / 2 + 1), Math.max(1, n * 9 / 10), n}) {
                    if (df > n) {
                        continue; // impossible statistics: a term cannot be in more docs than the field
                    }
                    for (float boost : BOOSTS) {
                        CollectionStatistics cs = new CollectionStatistics("f", n + 5, n, n * 57, n * 40);
                        TermStatistics ts = new TermStatistics(new BytesRef("t"), df, df * 3);
                        SimScorer scorer = sim.scorer(boost, cs, ts);
                        float[] prevByNorm = new float[256];
                        for (int fi = 0; fi < freqs.length; fi++) {
                            float prevByLength = Float.POSITIVE_INFINITY;
                            for (int norm = 1; norm <= 255; norm++) {
                                float score = scorer.score(freqs[fi], norm);
                                checks++;
                                String where = sim + " N=" + n + " n=" + df + " boost=" + boost + " freq=" + freqs[fi] + " norm=" + norm;
                                if (!(score >= 0f) || !Float.isFinite(score)) {
                                    failures.add("negative or non-finite score " + score + " at " + where);
                                }
                                if (score > prevByLength) {
                                    failures.add("score rises with length: " + prevByLength + " -> " + score + " at " + where);
                                }
                                if (fi > 0 && score < prevByNorm[norm]) {
                                    failures.add("score falls with freq: " + prevByNorm[norm] + " -> " + score + " at " + where);
                                }
                                if (norm % 17 == 1 && (fi % 7 == 0)) {
                                    Explanation e = scorer.explain(Explanation.match(freqs[fi], "freq, occurrences of term within document"), norm);
                                    if (Float.floatToIntBits(e.getValue().floatValue()) != Float.floatToIntBits(score)) {
                                        failures.add("explain " + e.getValue() + " != score " + score + " at " + where);
                                    }
                                }
                                prevByLength = score;
                                prevByNorm[norm] = score;
                            }
                            if (failures.size() > 20) {
                                fail(String.join("\n", failures));
                            }
                        }
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " failures:\n" + String.join("\n", failures));
        }
        System.out.println("ScoreShapeTest: " + checks + " (freq, norm) scores checked over " + grid().size() + " similarities");
    }

    @Test
    void engineValidationAcceptsEveryGridPoint() throws Throwable {
        for (Similarity sim : grid()) {
            EngineTestSupport.validate(sim);
        }
    }

    @Test
    void explainMatchesScoreOnARealIndexAndNamesQ() throws Exception {
        List<String> docs = TestCorpus.documents();
        for (double q : new double[] {0.05, 1, 1.5}) {
            for (String form : FORMS) {
                Map<String, String> s = new HashMap<>();
                s.put("q", Double.toString(q));
                s.put("form", form);
                Similarity sim = EngineTestSupport.qlog(s);
                try (DirectoryReader reader = TestCorpus.index(docs, sim)) {
                    IndexSearcher searcher = new IndexSearcher(reader);
                    searcher.setSimilarity(sim);
                    for (String term : new String[] {"func", "return", "buffer", "rune", "quote"}) {
                        TermQuery tq = new TermQuery(new Term(TestCorpus.FIELD, term));
                        TopDocs top = searcher.search(tq, 20);
                        for (ScoreDoc sd : top.scoreDocs) {
                            Explanation e = searcher.explain(tq, sd.doc);
                            assertTrue(e.isMatch());
                            assertEquals(Float.floatToIntBits(sd.score), Float.floatToIntBits(e.getValue().floatValue()), e.toString());
                            String text = e.toString();
                            assertTrue(text.contains("q-log") && text.contains("q = " + q) && text.contains("form = " + form), text);
                        }
                    }
                }
            }
        }
    }

    @Test
    void toStringNamesParameters() {
        Map<String, String> s = new HashMap<>();
        s.put("q", "0.3");
        s.put("form", "rsj");
        s.put("k1", "0.9");
        String text = QLogSimilaritySettings.parse(s).newBM25().toString();
        assertEquals("QLogBM25(q=0.3, form=rsj, k1=0.9, b=0.75, discount_overlaps=true)", text);
    }
}
