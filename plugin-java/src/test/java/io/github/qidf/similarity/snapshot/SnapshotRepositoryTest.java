package io.github.qidf.similarity.snapshot;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The take protocol on an in-memory store: whatever happens between the mark and the publish
 * (a delete, another take, a failure), the store holds exactly one published generation or
 * none, and no chunk of any other.
 */
class SnapshotRepositoryTest {

    static final class MemoryStore implements SnapshotStore {
        final TreeMap<String, Doc> docs = new TreeMap<>();
        final Map<String, byte[]> chunks = new HashMap<>();
        final Map<String, String[]> chunkOwners = new HashMap<>();
        long seq;

        @Override
        public void ensureIndex() {}

        @Override
        public boolean exists() {
            return true;
        }

        @Override
        public synchronized Doc get(String id) {
            return docs.get(id);
        }

        @Override
        public synchronized Doc put(String id, Map<String, Object> source, Doc expected) {
            Doc now = docs.get(id);
            if (expected == null ? now != null : now == null || now.seqNo != expected.seqNo) {
                throw new Conflict("conflict on " + id);
            }
            Doc written = new Doc(id, source, ++seq, 1);
            docs.put(id, written);
            return written;
        }

        @Override
        public synchronized void putChunk(String id, String key, String token, byte[] data) {
            chunks.put(id, data);
            chunkOwners.put(id, new String[] {key, token});
        }

        @Override
        public synchronized byte[] getChunk(String id) {
            return chunks.get(id);
        }

        @Override
        public synchronized void delete(String id, Doc expected) {
            Doc now = docs.get(id);
            if (expected != null && (now == null || now.seqNo != expected.seqNo)) {
                throw new Conflict("conflict on " + id);
            }
            docs.remove(id);
            chunks.remove(id);
            chunkOwners.remove(id);
        }

        @Override
        public synchronized List<String> ids(String kind, String key) {
            List<String> out = new ArrayList<>();
            if (kind.equals("meta")) {
                for (String id : docs.keySet()) {
                    if (key == null || id.equals("meta:" + key)) {
                        out.add(id);
                    }
                }
            } else {
                for (Map.Entry<String, String[]> e : chunkOwners.entrySet()) {
                    if (key == null || e.getValue()[0].equals(key)) {
                        out.add(e.getKey());
                    }
                }
            }
            return out;
        }

        @Override
        public void refresh() {}
    }

    static List<ShardReport> reports;

    @BeforeAll
    static void shards() throws IOException {
        reports = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            ByteBuffersDirectory dir = new ByteBuffersDirectory();
            try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()))) {
                for (int i = 0; i < 50; i++) {
                    Document d = new Document();
                    d.add(new TextField("body", "shard" + s + " doc" + i + " common words " + (i % 7 == 0 ? "rare" : ""),
                        Field.Store.NO));
                    w.addDocument(d);
                }
            }
            try (DirectoryReader r = DirectoryReader.open(dir)) {
                reports.add(ShardReport.read(s, r, List.of(), 49));
            }
        }
    }

    static SnapshotRepository.TakeRequest request() {
        return new SnapshotRepository.TakeRequest("k", "k", "i", "u", 2);
    }

    /** The store holds the key's published generation and its chunks, and nothing else. */
    static void assertClean(MemoryStore store, long generation) throws IOException {
        SnapshotRepository repo = new SnapshotRepository(store);
        Map<String, Object> meta = repo.meta("k");
        if (generation == 0) {
            assertNull(meta, "no meta document");
            assertTrue(store.chunks.isEmpty(), "no chunk: " + store.chunks.keySet());
            return;
        }
        assertNotNull(meta);
        assertEquals(generation, ((Number) meta.get("generation")).longValue());
        assertNull(meta.get("taking"), "no mark left");
        String prefix = "chunk:k:" + meta.get("token") + ":";
        for (String id : store.chunks.keySet()) {
            assertTrue(id.startsWith(prefix), "a chunk of no published generation: " + id);
        }
        StatisticsSnapshot loaded = repo.load("k");
        assertEquals(generation, loaded.generation());
        assertEquals(2, loaded.field("body").docFreq(new BytesRef("common")) / 50);
    }

    @Test
    void takeThenRefreshKeepsOneGeneration() throws IOException {
        MemoryStore store = new MemoryStore();
        SnapshotRepository repo = new SnapshotRepository(store);
        repo.take(request(), () -> reports, () -> false);
        assertClean(store, 1);
        Map<String, Object> second = repo.take(request(), () -> reports, () -> false);
        assertEquals(2L, ((Number) second.get("generation")).longValue());
        assertClean(store, 2);
        assertEquals(100L, ((Number) second.get("docs")).longValue());
        repo.delete("k");
        assertClean(store, 0);
    }

    @Test
    void aDeleteDuringTheTakeWins() throws IOException {
        for (int earlier = 0; earlier < 2; earlier++) {
            MemoryStore store = new MemoryStore();
            SnapshotRepository repo = new SnapshotRepository(store);
            for (int i = 0; i < earlier; i++) {
                repo.take(request(), () -> reports, () -> false);
            }
            Supplier<List<ShardReport>> racing = () -> {
                repo.delete("k"); // a revert's recovery while the engine takes it
                return reports;
            };
            assertThrows(SnapshotStore.Conflict.class, () -> repo.take(request(), racing, () -> false));
            assertClean(store, 0);
        }
    }

    @Test
    void twoTakesOfOneKeyNeverBothPublish() throws IOException {
        // The later take marks over the earlier one's mark and publishes; the earlier one then
        // finds its mark gone and fails, removing its own chunks: one generation, never a mix.
        MemoryStore store = new MemoryStore();
        SnapshotRepository repo = new SnapshotRepository(store);
        repo.take(request(), () -> reports, () -> false);
        Supplier<List<ShardReport>> racing = () -> {
            try {
                repo.take(request(), () -> reports, () -> false);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return reports;
        };
        assertThrows(SnapshotStore.Conflict.class, () -> repo.take(request(), racing, () -> false));
        assertClean(store, 2);
    }

    @Test
    void aFailedTakeLeavesTheEarlierGenerationOrNothing() throws IOException {
        for (int earlier = 0; earlier < 2; earlier++) {
            MemoryStore store = new MemoryStore();
            SnapshotRepository repo = new SnapshotRepository(store);
            for (int i = 0; i < earlier; i++) {
                repo.take(request(), () -> reports, () -> false);
            }
            Supplier<List<ShardReport>> failing = () -> {
                throw new IllegalStateException("a shard moved");
            };
            assertThrows(IllegalStateException.class, () -> repo.take(request(), failing, () -> false));
            assertClean(store, earlier);
        }
    }

    @Test
    void aStrayChunkOfADeadTakeIsSweptByTheNext() throws IOException {
        MemoryStore store = new MemoryStore();
        SnapshotRepository repo = new SnapshotRepository(store);
        store.putChunk("chunk:k:deadbeefdeadbeef:0", "k", "deadbeefdeadbeef", new byte[] {1, 2, 3});
        repo.take(request(), () -> reports, () -> false);
        assertClean(store, 1);
    }
}
