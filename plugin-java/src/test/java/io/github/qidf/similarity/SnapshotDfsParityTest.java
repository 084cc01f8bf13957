package io.github.qidf.similarity;

import io.github.qidf.similarity.engine.EngineTestSupport;
import io.github.qidf.similarity.snapshot.FieldTermStatistics;
import io.github.qidf.similarity.snapshot.ShardStatisticsReader;
import io.github.qidf.similarity.snapshot.SnapshotCache;
import io.github.qidf.similarity.snapshot.SnapshotMerger;
import io.github.qidf.similarity.snapshot.StatisticsSnapshot;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A statistics snapshot scores exactly as {@code dfs_query_then_fetch} does: several Lucene
 * indices stand for the shards of one index (several segments each, documents deleted and not
 * merged away), a searcher that returns aggregated statistics stands for the dfs phase (the
 * engines' {@code ContextIndexSearcher} with an {@code AggregatedDfs}: per term the sum of the
 * shards' df, per field the sums of the shards' collection statistics), and every hit of every
 * query on every shard must have the same float score, bit for bit.
 */
class SnapshotDfsParityTest {

    static final BooleanSupplier NEVER = () -> false;
    static final String TEXT = TestCorpus.FIELD;
    static final String TITLE = "title";

    static List<String> docs;
    static List<Query> queries;
    static final List<DirectoryReader> open = new ArrayList<>();

    @BeforeAll
    static void setUp() throws IOException {
        docs = TestCorpus.documents();
        queries = ScoreParityTest.buildQueries(docs);
    }

    @AfterAll
    static void tearDown() throws IOException {
        for (DirectoryReader r : open) {
            r.close();
        }
    }

    /**
     * The corpus split into {@code n} shards by id, a commit every 37 documents (several segments,
     * no merges), and every 11th document deleted afterwards (still counted by df, as in Lucene).
     */
    static List<IndexReader> shards(int n, Similarity similarity) throws IOException {
        List<IndexWriter> writers = new ArrayList<>();
        List<Directory> dirs = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            Directory dir = new ByteBuffersDirectory();
            IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setSimilarity(similarity)
                .setMergePolicy(NoMergePolicy.INSTANCE);
            dirs.add(dir);
            writers.add(new IndexWriter(dir, config));
        }
        for (int id = 0; id < docs.size(); id++) {
            String text = docs.get(id);
            Document d = new Document();
            d.add(new StringField("id", Integer.toString(id), Field.Store.YES));
            d.add(new TextField(TEXT, text, Field.Store.NO));
            if (id % 3 != 0) { // a second field, missing from some documents
                d.add(new TextField(TITLE, text.lines().findFirst().orElse(""), Field.Store.NO));
            }
            IndexWriter w = writers.get(Math.floorMod(Integer.toString(id).hashCode() * 31, n));
            w.addDocument(d);
            if (id % 37 == 0) {
                w.commit();
            }
        }
        for (int id = 0; id < docs.size(); id += 11) {
            for (IndexWriter w : writers) {
                w.deleteDocuments(new Term("id", Integer.toString(id)));
            }
        }
        List<IndexReader> readers = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            writers.get(s).close();
            DirectoryReader r = DirectoryReader.open(dirs.get(s));
            open.add(r);
            readers.add(r);
        }
        return readers;
    }

    /** The dfs phase's aggregation, over the shards' own readers. */
    static final class DfsSearcher extends IndexSearcher {
        private final List<IndexReader> all;

        DfsSearcher(IndexReader shard, List<IndexReader> all) {
            super(shard);
            this.all = all;
        }

        @Override
        public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq) throws IOException {
            long df = 0;
            long ttf = 0;
            for (IndexReader r : all) {
                df += r.docFreq(term);
                ttf += r.totalTermFreq(term);
            }
            return new TermStatistics(term.bytes(), df, ttf);
        }

        @Override
        public CollectionStatistics collectionStatistics(String field) throws IOException {
            long maxDoc = 0;
            long docCount = 0;
            long sumTtf = 0;
            long sumDf = 0;
            for (IndexReader r : all) {
                CollectionStatistics c = new IndexSearcher(r).collectionStatistics(field);
                if (c != null) {
                    maxDoc += c.maxDoc();
                    docCount += c.docCount();
                    sumTtf += c.sumTotalTermFreq();
                    sumDf += c.sumDocFreq();
                }
            }
            return docCount == 0 ? null : new CollectionStatistics(field, maxDoc, docCount, sumTtf, sumDf);
        }
    }

    static StatisticsSnapshot snapshot(List<IndexReader> shards, int minDocFreq, List<String> fields) throws IOException {
        List<byte[]> reports = new ArrayList<>();
        for (IndexReader r : shards) {
            reports.add(ShardStatisticsReader.read(r, fields, NEVER)); // the form that travels between nodes
        }
        StatisticsSnapshot merged = SnapshotMerger.merge(reports, "test", "uuid", minDocFreq, NEVER).withIdentity("k", 1, 0);
        return StatisticsSnapshot.decode(merged.encode());
    }

    static Map<String, String> settings(String q) {
        Map<String, String> s = new HashMap<>();
        s.put("q", q);
        s.put("stats_snapshot", "k");
        return s;
    }

    /** Every query on every shard: the same hits, the same float bits. Returns how many scores were compared. */
    static int assertParity(List<IndexReader> shards, Similarity dfsSimilarity, Similarity snapshotSimilarity,
                            List<Query> qs) throws IOException {
        int compared = 0;
        for (IndexReader shard : shards) {
            IndexSearcher dfs = new DfsSearcher(shard, shards);
            dfs.setSimilarity(dfsSimilarity);
            IndexSearcher plain = new IndexSearcher(shard);
            plain.setSimilarity(snapshotSimilarity);
            for (Query q : qs) {
                for (int n : new int[] {shard.maxDoc() + 1, 10}) {
                    TopDocs want = dfs.search(q, n);
                    TopDocs got = plain.search(q, n);
                    assertEquals(want.scoreDocs.length, got.scoreDocs.length, q.toString());
                    for (int i = 0; i < want.scoreDocs.length; i++) {
                        ScoreDoc w = want.scoreDocs[i];
                        ScoreDoc g = got.scoreDocs[i];
                        assertEquals(w.doc, g.doc, q + " rank " + i);
                        assertEquals(Float.floatToIntBits(w.score), Float.floatToIntBits(g.score),
                            q + " doc " + w.doc + ": dfs " + w.score + ", snapshot " + g.score);
                        compared++;
                    }
                }
            }
        }
        return compared;
    }

    static List<Query> withTitleQueries() {
        List<Query> qs = new ArrayList<>(queries);
        for (Query q : queries.subList(0, 120)) {
            if (q instanceof TermQuery) {
                qs.add(new TermQuery(new Term(TITLE, ((TermQuery) q).getTerm().bytes())));
            }
        }
        return qs;
    }

    @Test
    void snapshotScoresEqualDfsScoresOnSeveralShards() throws Exception {
        for (int n : new int[] {3, 5}) {
            for (String q : n == 3 ? new String[] {"0.3", "1"} : new String[] {"0.3"}) {
                Similarity dfsSim = EngineTestSupport.qlog(Map.of("q", q));
                List<IndexReader> shards = shards(n, dfsSim);
                for (int minDf : n == 3 ? new int[] {1, 2} : new int[] {2}) {
                    SnapshotCache cache = new SnapshotCache();
                    cache.offer(snapshot(shards, minDf, List.of()));
                    Similarity snapSim = EngineTestSupport.qlog(settings(q), cache);
                    int compared = assertParity(shards, dfsSim, snapSim, withTitleQueries());
                    assertTrue(compared > 2000, "compared " + compared);
                    System.out.println("SnapshotDfsParityTest: " + n + " shards, q " + q + ", min_doc_freq " + minDf
                        + ": " + compared + " scores bit-identical to dfs on " + EngineTestSupport.engineName());
                }
            }
        }
    }

    @Test
    void withoutTheSnapshotPerShardScoresDiffer() throws Exception {
        Similarity sim = EngineTestSupport.qlog(Map.of("q", "0.3"));
        List<IndexReader> shards = shards(3, sim);
        // named but not loaded: the shard's own statistics, which are not the index's
        Similarity unloaded = EngineTestSupport.qlog(settings("0.3"), new SnapshotCache());
        IndexSearcher dfs = new DfsSearcher(shards.get(0), shards);
        dfs.setSimilarity(sim);
        IndexSearcher plain = new IndexSearcher(shards.get(0));
        plain.setSimilarity(unloaded);
        int differ = 0;
        for (Query q : queries) {
            TopDocs a = dfs.search(q, 10);
            TopDocs b = plain.search(q, 10);
            if (a.scoreDocs.length > 0 && a.scoreDocs[0].score != b.scoreDocs[0].score) {
                differ++;
            }
        }
        assertTrue(differ > queries.size() / 2, "only " + differ + " of " + queries.size() + " differ");
    }

    @Test
    void qOneWithSnapshotIsTheEngineDefaultWithDfs() throws Exception {
        // q = 1 ranks as the built-in BM25 given the same (index-wide) statistics, bit for bit
        Similarity engine = EngineTestSupport.engineDefault();
        List<IndexReader> shards = shards(3, engine);
        SnapshotCache cache = new SnapshotCache();
        cache.offer(snapshot(shards, 2, List.of()));
        int compared = assertParity(shards, engine, EngineTestSupport.qlog(settings("1"), cache), queries);
        assertTrue(compared > 2000, "compared " + compared);
    }

    @Test
    void dfCountsDeletedDocumentsAsLuceneDoes() throws Exception {
        List<IndexReader> shards = shards(3, EngineTestSupport.qlog(Map.of()));
        StatisticsSnapshot s = snapshot(shards, 1, List.of(TEXT));
        FieldTermStatistics body = s.field(TEXT);
        assertNotNull(body);
        assertNull(s.field(TITLE), "only the fields asked for");
        int withDeleted = 0;
        long terms = 0;
        for (IndexReader r : shards) {
            assertTrue(r.numDeletedDocs() > 0, "the test needs deleted documents");
        }
        Terms all = MultiTerms.getTerms(shards.get(0), TEXT);
        TermsEnum it = all.iterator();
        for (BytesRef t = it.next(); t != null; t = it.next()) {
            long df = 0;
            long live = 0;
            for (IndexReader r : shards) {
                df += r.docFreq(new Term(TEXT, t));
                live += new IndexSearcher(r).count(new TermQuery(new Term(TEXT, t)));
            }
            assertEquals(df, body.docFreq(t), t.utf8ToString());
            if (live < df) {
                withDeleted++;
            }
            terms++;
        }
        assertTrue(withDeleted > 10, "terms whose df counts deleted documents: " + withDeleted + " of " + terms);
        long docCount = 0;
        long live = 0;
        for (IndexReader r : shards) {
            docCount += new IndexSearcher(r).collectionStatistics(TEXT).docCount();
            live += new IndexSearcher(r).count(new MatchAllDocsQuery());
        }
        assertEquals(docCount, body.docCount());
        assertTrue(docCount > live, "docCount counts deleted documents too");
    }

    @Test
    void minDocFreqLeavesOutTermsOfOneDocument() throws Exception {
        List<IndexReader> shards = shards(3, EngineTestSupport.qlog(Map.of()));
        StatisticsSnapshot all = snapshot(shards, 1, List.of(TEXT));
        StatisticsSnapshot two = snapshot(shards, 2, List.of(TEXT));
        assertTrue(two.field(TEXT).termCount() < all.field(TEXT).termCount());
        assertEquals(all.field(TEXT).docCount(), two.field(TEXT).docCount());
        assertTrue(two.ramBytesUsed() < all.ramBytesUsed());
        System.out.println("SnapshotDfsParityTest: " + all.field(TEXT).termCount() + " terms, "
            + two.field(TEXT).termCount() + " with df >= 2; FST " + all.ramBytesUsed() + " / " + two.ramBytesUsed() + " bytes");
    }
}
