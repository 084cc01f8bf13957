package io.github.qidf.similarity;

import io.github.qidf.similarity.engine.EngineTestSupport;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * At q = 1 the plugin must score exactly (bit for bit) like the engine's built-in default
 * similarity, taken from the engine's own SimilarityService tables.
 */
class ScoreParityTest {

    static List<String> docs;
    static List<Query> queries;
    static final List<DirectoryReader> readers = new ArrayList<>();

    @BeforeAll
    static void setUp() throws IOException {
        docs = TestCorpus.documents();
        queries = buildQueries(docs);
    }

    @AfterAll
    static void tearDown() throws IOException {
        for (DirectoryReader r : readers) {
            r.close();
        }
    }

    static List<Query> buildQueries(List<String> docs) throws IOException {
        Random random = new Random(20240611L);
        List<Query> out = new ArrayList<>();
        List<String> terms = new ArrayList<>();
        try (DirectoryReader reader = TestCorpus.index(docs, new BM25Similarity())) {
            Terms t = MultiTerms.getTerms(reader, TestCorpus.FIELD);
            TermsEnum it = t.iterator();
            for (BytesRef b = it.next(); b != null; b = it.next()) {
                terms.add(b.utf8ToString());
            }
        }
        Collections.shuffle(terms, random);
        List<String> sample = terms.subList(0, Math.min(250, terms.size()));
        for (String s : sample) {
            out.add(new TermQuery(new Term(TestCorpus.FIELD, s)));
        }
        // very common terms too (df > N/2 for some of them)
        for (String s : new String[] {"the", "func", "return", "if", "err", "a", "b", "i", "string", "byte", "self", "def"}) {
            out.add(new TermQuery(new Term(TestCorpus.FIELD, s)));
            out.add(new BoostQuery(new TermQuery(new Term(TestCorpus.FIELD, s)), 3.7f));
        }
        for (int i = 0; i < 150; i++) {
            BooleanQuery.Builder bq = new BooleanQuery.Builder();
            int clauses = 2 + random.nextInt(6);
            for (int c = 0; c < clauses; c++) {
                Query tq = new TermQuery(new Term(TestCorpus.FIELD, sample.get(random.nextInt(sample.size()))));
                if (random.nextInt(4) == 0) {
                    tq = new BoostQuery(tq, 0.5f + random.nextInt(40) / 8f);
                }
                bq.add(tq, c == 0 && random.nextInt(5) == 0 ? BooleanClause.Occur.MUST : BooleanClause.Occur.SHOULD);
            }
            out.add(bq.build());
        }
        // phrases from the text itself (multi-term idf: the sum of per-term idfs)
        Analyzer analyzer = new StandardAnalyzer();
        for (int i = 0; i < 60; i++) {
            List<String> tokens = tokens(analyzer, docs.get(random.nextInt(docs.size())));
            if (tokens.size() < 4) {
                continue;
            }
            int start = random.nextInt(tokens.size() - 3);
            PhraseQuery.Builder pq = new PhraseQuery.Builder();
            int len = 2 + random.nextInt(2);
            for (int k = 0; k < len; k++) {
                pq.add(new Term(TestCorpus.FIELD, tokens.get(start + k)));
            }
            out.add(pq.build());
        }
        return out;
    }

    static List<String> tokens(Analyzer analyzer, String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream(TestCorpus.FIELD, text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(term.toString());
            }
            ts.end();
        }
        return out;
    }

    /** Runs every query on both indexes; returns how many scores were compared. */
    static int assertSameScores(Similarity expected, Similarity actual) throws IOException {
        DirectoryReader expectedReader = TestCorpus.index(docs, expected);
        DirectoryReader actualReader = TestCorpus.index(docs, actual);
        readers.add(expectedReader);
        readers.add(actualReader);
        IndexSearcher es = new IndexSearcher(expectedReader);
        es.setSimilarity(expected);
        IndexSearcher as = new IndexSearcher(actualReader);
        as.setSimilarity(actual);
        int compared = 0;
        for (Query q : queries) {
            for (int n : new int[] {docs.size(), 10}) { // all hits, and top-10 (block-max WAND path)
                TopDocs e = es.search(q, n);
                TopDocs a = as.search(q, n);
                assertEquals(e.scoreDocs.length, a.scoreDocs.length, q.toString());
                for (int i = 0; i < e.scoreDocs.length; i++) {
                    ScoreDoc ed = e.scoreDocs[i];
                    ScoreDoc ad = a.scoreDocs[i];
                    assertEquals(ed.doc, ad.doc, q + " rank " + i);
                    assertEquals(Float.floatToIntBits(ed.score), Float.floatToIntBits(ad.score),
                        q + " doc " + ed.doc + ": expected " + ed.score + " got " + ad.score);
                    compared++;
                }
            }
        }
        return compared;
    }

    @Test
    void engineDefaultIsWhatWeThinkItIs() throws Exception {
        Similarity def = EngineTestSupport.engineDefault();
        if (EngineTestSupport.defaultIsLegacy()) {
            assertEquals("LegacyBM25Similarity", def.getClass().getSimpleName(), EngineTestSupport.engineName());
            assertSame(LegacyQLogBM25Similarity.class, EngineTestSupport.qlog(Map.of()).getClass());
        } else {
            assertSame(BM25Similarity.class, def.getClass(), EngineTestSupport.engineName());
            assertSame(QLogBM25Similarity.class, EngineTestSupport.qlog(Map.of()).getClass());
        }
    }

    @Test
    void qOneIsBitIdenticalToEngineDefault() throws Exception {
        Similarity def = EngineTestSupport.engineDefault();
        int n1 = assertSameScores(def, EngineTestSupport.qlog(Map.of()));
        int n2 = assertSameScores(def, EngineTestSupport.qlog(Map.of("q", "1", "form", "lucene", "k1", "1.2", "b", "0.75")));
        assertTrue(n1 > 1000 && n2 == n1, "compared " + n1 + " / " + n2);
        System.out.println("ScoreParityTest: " + queries.size() + " queries x 2, " + n1 + " scores bit-identical to "
            + def.getClass().getName() + " on " + EngineTestSupport.engineName() + " (" + docs.size() + " docs)");
    }

    @Test
    void qOneIsBitIdenticalToEngineBM25WithCustomParameters() throws Exception {
        Map<String, String> params = new HashMap<>();
        params.put("k1", "0.9");
        params.put("b", "0.4");
        params.put("discount_overlaps", "false");
        Similarity engine = EngineTestSupport.engineBM25(params);
        Map<String, String> ours = new HashMap<>(params);
        ours.put("q", "1.0");
        int n = assertSameScores(engine, EngineTestSupport.qlog(ours));
        assertTrue(n > 1000, "compared " + n);
    }

    @Test
    void otherQScoresDiffer() throws Exception {
        DirectoryReader reader = TestCorpus.index(docs, EngineTestSupport.engineDefault());
        readers.add(reader);
        IndexSearcher def = new IndexSearcher(reader);
        def.setSimilarity(EngineTestSupport.engineDefault());
        IndexSearcher q03 = new IndexSearcher(reader);
        q03.setSimilarity(EngineTestSupport.qlog(Map.of("q", "0.3")));
        Query q = queries.get(0);
        TopDocs a = def.search(q, 5);
        TopDocs b = q03.search(q, 5);
        assertTrue(a.scoreDocs.length > 0);
        assertNotEquals(a.scoreDocs[0].score, b.scoreDocs[0].score);
    }
}
