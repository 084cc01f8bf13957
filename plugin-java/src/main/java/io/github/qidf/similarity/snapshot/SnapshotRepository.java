package io.github.qidf.similarity.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Taking, reading and deleting statistics snapshots in the {@link SnapshotStore}, the same on
 * every engine.
 *
 * <p>A snapshot is one meta document ({@code meta:<key>}: generation, when and from what it was
 * taken, the collection statistics, how many chunks) and its bytes ({@link StatisticsSnapshot#encode})
 * cut into chunk documents ({@code chunk:<key>:<token>:<i>}, the token new for every take).
 * A take is ordered so that whatever stops it leaves a consistent store:
 * <ol>
 *   <li>the meta document gets a {@code taking} mark (a conditional write on the version just
 *       read; a later take marks over an earlier one, which then fails when it publishes, so
 *       two takes of one key never both publish, and a dead take's mark never blocks);</li>
 *   <li>the shards are read and merged, and the chunks written under the new token (nothing
 *       names them yet: a reader still loads the previous generation);</li>
 *   <li>the meta document is switched to the new generation, conditional on the mark: if it was
 *       deleted meanwhile (a revert), the take fails and removes its chunks, so a snapshot
 *       nobody names is not resurrected;</li>
 *   <li>chunks of other tokens of the key (the previous generation, or what an interrupted take
 *       left) are deleted.</li>
 * </ol>
 * A failure removes the take's own chunks and its mark (the whole meta document when there was
 * no earlier generation). A node that dies in between leaves at most a mark and chunks that the
 * next take or delete of the key removes.
 */
public final class SnapshotRepository {

    /** Bytes per chunk document (a document, its translog entry and a get stay well below any limit). */
    public static final int CHUNK_BYTES = 8 * 1024 * 1024;
    static final String META = "meta";
    static final String CHUNK = "chunk";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final SnapshotStore store;

    public SnapshotRepository(SnapshotStore store) {
        this.store = store;
    }

    public static String metaId(String key) {
        return META + ":" + key;
    }

    static String chunkPrefix(String key, String token) {
        return CHUNK + ":" + key + ":" + token + ":";
    }

    static String newToken() {
        return String.format(Locale.ROOT, "%016x", RANDOM.nextLong());
    }

    /** The body of the key's meta document, or null when there is none. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> meta(String key) {
        SnapshotStore.Doc doc = store.get(metaId(key));
        return doc == null ? null : (Map<String, Object>) doc.source.get("body");
    }

    /** Every key with a meta document. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>();
        if (!store.exists()) {
            return keys;
        }
        store.refresh();
        for (String id : store.ids(META, null)) {
            keys.add(id.substring(META.length() + 1));
        }
        return keys;
    }

    private static Map<String, Object> source(String key, Map<String, Object> body) {
        Map<String, Object> source = new LinkedHashMap<>();
        source.put("kind", META);
        source.put("key", key);
        source.put("body", body);
        return source;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> bodyOf(SnapshotStore.Doc doc) {
        return doc == null ? new LinkedHashMap<>() : new LinkedHashMap<>((Map<String, Object>) doc.source.get("body"));
    }

    static long generationOf(Map<String, Object> body) {
        Object g = body == null ? null : body.get("generation");
        return g instanceof Number ? ((Number) g).longValue() : 0L;
    }

    /** The identity of a take, given by the caller. */
    public static final class TakeRequest {
        public final String key;
        public final String owner;
        public final String index;
        public final String indexUuid;
        public final int minDocFreq;

        public TakeRequest(String key, String owner, String index, String indexUuid, int minDocFreq) {
            this.key = key;
            this.owner = owner;
            this.index = index;
            this.indexUuid = indexUuid;
            this.minDocFreq = minDocFreq;
        }
    }

    /**
     * Takes a snapshot: marks the key, collects the shards' reports ({@code collect}, one copy of
     * every shard), merges them, writes and publishes the new generation. Returns the new meta body.
     *
     * @throws SnapshotStore.Conflict when another take or a delete of the same key got in between
     */
    public Map<String, Object> take(TakeRequest request, Supplier<List<ShardReport>> collect, BooleanSupplier cancelled)
        throws IOException {
        long started = System.currentTimeMillis();
        store.ensureIndex();
        String id = metaId(request.key);
        SnapshotStore.Doc before = store.get(id);
        long previous = before == null ? 0L : generationOf(bodyOf(before));
        String token = newToken();
        Map<String, Object> marked = bodyOf(before);
        Map<String, Object> taking = new LinkedHashMap<>();
        taking.put("token", token);
        taking.put("started_at", started);
        taking.put("index", request.index);
        marked.put("taking", taking);
        SnapshotStore.Doc mark;
        try {
            mark = store.put(id, source(request.key, marked), before);
        } catch (SnapshotStore.Conflict e) {
            throw new SnapshotStore.Conflict("another take or delete of the statistics snapshot [" + request.key
                + "] is running: try again once it is done");
        }
        Map<String, Object> body;
        Map<String, Object> phases = new LinkedHashMap<>();
        Map<String, Object> cpu = new LinkedHashMap<>();
        long phase = System.currentTimeMillis();
        phases.put("mark", phase - started);
        try {
            List<ShardReport> reports = collect.get();
            phases.put("collect", System.currentTimeMillis() - phase);
            long shardCpu = 0;
            for (ShardReport r : reports) {
                shardCpu = shardCpu < 0 || r.cpuMillis < 0 ? -1 : shardCpu + r.cpuMillis;
            }
            cpu.put("collect", shardCpu);
            phase = System.currentTimeMillis();
            long cpuAt = Cpu.nanos();
            List<byte[]> parts = new ArrayList<>();
            long docs = 0;
            long maxSeqNo = 0;
            for (ShardReport r : reports) {
                parts.add(r.statistics);
                docs += r.liveDocs;
                maxSeqNo += r.maxSeqNo;
            }
            StatisticsSnapshot merged = SnapshotMerger.merge(parts, request.index, request.indexUuid,
                request.minDocFreq, cancelled);
            parts = null; // the shards' reports can go before the chunks are written
            phases.put("merge", System.currentTimeMillis() - phase);
            long cpuMerged = Cpu.nanos();
            cpu.put("merge", Cpu.millis(cpuAt, cpuMerged));
            phase = System.currentTimeMillis();
            long generation = previous + 1;
            long takenAt = System.currentTimeMillis();
            StatisticsSnapshot snapshot = merged.withIdentity(request.key, generation, takenAt);
            ChunkWriter out = new ChunkWriter(store, request.key, token);
            snapshot.encode(out);
            phases.put("write", System.currentTimeMillis() - phase);
            cpu.put("write", Cpu.millis(cpuMerged, Cpu.nanos()));
            phase = System.currentTimeMillis();
            body = describe(request, snapshot, reports.size(), docs, maxSeqNo);
            body.put("token", token);
            body.put("chunks", out.chunks);
            body.put("bytes", out.bytes);
            body.put("took_ms", System.currentTimeMillis() - started);
            body.put("taking", null);
            body.put("phases_ms", phases);
            body.put("cpu_ms", cpu);
            store.put(id, source(request.key, body), mark);
            phases.put("publish", System.currentTimeMillis() - phase);
        } catch (SnapshotStore.Conflict e) {
            deleteChunks(request.key, token);
            throw new SnapshotStore.Conflict("the statistics snapshot [" + request.key + "] was deleted or taken "
                + "again while this take ran; nothing of this take was kept");
        } catch (IOException | RuntimeException | Error e) {
            abandon(request.key, token, mark, previous);
            throw e;
        }
        phase = System.currentTimeMillis();
        deleteChunksExcept(request.key, token);
        phases.put("cleanup", System.currentTimeMillis() - phase);
        return body;
    }

    private static Map<String, Object> describe(TakeRequest request, StatisticsSnapshot snapshot, int shards, long docs,
                                                long maxSeqNo) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("generation", snapshot.generation());
        body.put("taken_at", snapshot.takenAtMillis());
        body.put("index", request.index);
        body.put("index_uuid", request.indexUuid);
        body.put("owner", request.owner);
        body.put("shards", shards);
        body.put("docs", docs);
        body.put("max_seq_no", maxSeqNo);
        body.put("min_doc_freq", snapshot.minDocFreq());
        body.put("terms", snapshot.termCount());
        body.put("heap_bytes", snapshot.ramBytesUsed());
        Map<String, Object> fields = new LinkedHashMap<>();
        for (FieldTermStatistics f : snapshot.fields().values()) {
            Map<String, Object> stats = new LinkedHashMap<>();
            stats.put("doc_count", f.docCount());
            stats.put("sum_total_term_freq", f.sumTotalTermFreq());
            stats.put("sum_doc_freq", f.sumDocFreq());
            stats.put("max_doc", f.maxDoc());
            stats.put("terms", f.termCount());
            fields.put(f.field(), stats);
        }
        body.put("fields", fields);
        return body;
    }

    /** After a failed take: its chunks and its mark go (the meta document too when it held no generation). */
    private void abandon(String key, String token, SnapshotStore.Doc mark, long previous) {
        try {
            deleteChunks(key, token);
            if (previous == 0) {
                store.delete(mark.id, mark);
            } else {
                Map<String, Object> body = bodyOf(mark);
                body.put("taking", null);
                store.put(mark.id, source(key, body), mark);
            }
        } catch (RuntimeException suppressed) {
            // the next take or delete of the key removes what is left
        }
    }

    private void deleteChunks(String key, String token) {
        store.refresh();
        String prefix = chunkPrefix(key, token);
        for (String id : store.ids(CHUNK, key)) {
            if (id.startsWith(prefix)) {
                store.delete(id, null);
            }
        }
    }

    private void deleteChunksExcept(String key, String token) {
        store.refresh();
        String keep = chunkPrefix(key, token);
        for (String id : store.ids(CHUNK, key)) {
            if (!id.startsWith(keep)) {
                store.delete(id, null);
            }
        }
    }

    /**
     * Deletes the key's meta document and every chunk of it; returns the meta body it had (null:
     * there was none). A take running meanwhile fails when it tries to publish.
     */
    public Map<String, Object> delete(String key) {
        if (!store.exists()) {
            return null;
        }
        Map<String, Object> had = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            SnapshotStore.Doc doc = store.get(metaId(key));
            if (doc == null) {
                break;
            }
            try {
                store.delete(doc.id, doc);
                had = bodyOf(doc);
                break;
            } catch (SnapshotStore.Conflict e) {
                // changed between the read and the delete: read it again
            }
        }
        store.refresh();
        for (String id : store.ids(CHUNK, key)) {
            store.delete(id, null);
        }
        return had;
    }

    /**
     * The key's current generation read from the store, or null when there is none (no meta
     * document, or only the mark of a first take that has not finished).
     */
    public StatisticsSnapshot load(String key) throws IOException {
        for (int attempt = 0; ; attempt++) {
            Map<String, Object> body = meta(key);
            long generation = generationOf(body);
            if (generation <= 0) {
                return null;
            }
            String token = (String) body.get("token");
            int chunks = ((Number) body.get("chunks")).intValue();
            try (InputStream in = new ChunkReader(store, key, token, chunks)) {
                StatisticsSnapshot snapshot = StatisticsSnapshot.decode(in);
                if (!snapshot.key().equals(key) || snapshot.generation() != generation) {
                    throw new IOException("statistics snapshot [" + key + "]: chunks of generation "
                        + snapshot.generation() + " under generation " + generation);
                }
                return snapshot;
            } catch (ChunkReader.Gone e) {
                if (attempt >= 2) { // replaced by newer takes twice while reading: give up for now
                    throw new IOException("statistics snapshot [" + key + "] keeps changing while it is read", e);
                }
            }
        }
    }

    /** Writes what it is given as chunk documents of {@link #CHUNK_BYTES}. */
    static final class ChunkWriter extends OutputStream {
        private final SnapshotStore store;
        private final String key;
        private final String token;
        private byte[] buffer = new byte[CHUNK_BYTES];
        private int used;
        int chunks;
        long bytes;

        ChunkWriter(SnapshotStore store, String key, String token) {
            this.store = store;
            this.key = key;
            this.token = token;
        }

        @Override
        public void write(int b) {
            if (used == buffer.length) {
                flushChunk();
            }
            buffer[used++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                if (used == buffer.length) {
                    flushChunk();
                }
                int n = Math.min(len, buffer.length - used);
                System.arraycopy(b, off, buffer, used, n);
                used += n;
                off += n;
                len -= n;
            }
        }

        private void flushChunk() {
            byte[] data = used == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, used);
            store.putChunk(chunkPrefix(key, token) + chunks, key, token, data);
            chunks++;
            bytes += used;
            buffer = new byte[CHUNK_BYTES];
            used = 0;
        }

        @Override
        public void close() {
            if (used > 0 || chunks == 0) {
                flushChunk();
            }
            buffer = null;
        }
    }

    /** Reads the chunks of one generation in order, one document at a time. */
    static final class ChunkReader extends InputStream {
        /** A chunk vanished: a newer take replaced the generation being read. */
        static final class Gone extends IOException {
            private static final long serialVersionUID = 1L;

            Gone(String message) {
                super(message);
            }
        }

        private final SnapshotStore store;
        private final String prefix;
        private final int chunks;
        private int next;
        private byte[] current = new byte[0];
        private int position;

        ChunkReader(SnapshotStore store, String key, String token, int chunks) {
            this.store = store;
            this.prefix = chunkPrefix(key, token);
            this.chunks = chunks;
        }

        private boolean fill() throws IOException {
            while (position == current.length) {
                if (next == chunks) {
                    return false;
                }
                byte[] data = store.getChunk(prefix + next);
                if (data == null) {
                    throw new Gone("chunk " + prefix + next + " is gone");
                }
                next++;
                current = data;
                position = 0;
            }
            return true;
        }

        @Override
        public int read() throws IOException {
            return fill() ? current[position++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (!fill()) {
                return -1;
            }
            int n = Math.min(len, current.length - position);
            System.arraycopy(current, position, b, off, n);
            position += n;
            return n;
        }
    }

}
