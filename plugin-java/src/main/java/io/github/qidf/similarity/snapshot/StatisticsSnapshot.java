package io.github.qidf.similarity.snapshot;

import org.apache.lucene.util.fst.FST;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Index-wide term statistics of an index's text fields at one moment: what
 * {@code dfs_query_then_fetch} would aggregate from the shards for any query, taken once.
 *
 * <p>Also the shape in which one shard reports its own statistics to the node that merges them
 * (then {@link #key()} is empty and {@link #minDocFreq()} is 1: every term is kept, because a
 * term in one document of each of two shards is in two documents of the index).
 *
 * <p>{@link #encode()} and {@link #decode(byte[])} give the engine-neutral byte form that the
 * engines move between nodes and store: a header, then per field its collection statistics and
 * the FST's own serialization.
 */
public final class StatisticsSnapshot {

    private static final byte[] MAGIC = "QIDFSNP1".getBytes(StandardCharsets.US_ASCII);
    private static final int FORMAT = 1;

    private final String key;
    private final long generation;
    private final long takenAtMillis;
    private final String index;
    private final String indexUuid;
    private final int minDocFreq;
    private final Map<String, FieldTermStatistics> fields;

    public StatisticsSnapshot(String key, long generation, long takenAtMillis, String index, String indexUuid,
                              int minDocFreq, Map<String, FieldTermStatistics> fields) {
        this.key = key;
        this.generation = generation;
        this.takenAtMillis = takenAtMillis;
        this.index = index;
        this.indexUuid = indexUuid;
        this.minDocFreq = minDocFreq;
        this.fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /** The name the similarity's {@code stats_snapshot} setting gives; empty for one shard's report. */
    public String key() {
        return key;
    }

    public long generation() {
        return generation;
    }

    public long takenAtMillis() {
        return takenAtMillis;
    }

    /** The index the statistics were read from. */
    public String index() {
        return index;
    }

    public String indexUuid() {
        return indexUuid;
    }

    /**
     * Terms whose index-wide df is below this are left out (2 by default: a term of one document
     * has df 1 on the one shard holding it, so the shard's own df is exact for it).
     */
    public int minDocFreq() {
        return minDocFreq;
    }

    public Map<String, FieldTermStatistics> fields() {
        return fields;
    }

    /** The field's statistics, or null when the snapshot does not hold the field. */
    public FieldTermStatistics field(String name) {
        return fields.get(name);
    }

    /** Terms held over all fields. */
    public long termCount() {
        long n = 0;
        for (FieldTermStatistics f : fields.values()) {
            n += f.termCount();
        }
        return n;
    }

    /** Heap held by the FSTs (the rest is a few hundred bytes per field). */
    public long ramBytesUsed() {
        long n = 0;
        for (FieldTermStatistics f : fields.values()) {
            n += f.ramBytesUsed();
        }
        return n;
    }

    /** The same statistics under another key and generation (a merged report becomes a snapshot). */
    public StatisticsSnapshot withIdentity(String newKey, long newGeneration, long newTakenAtMillis) {
        return new StatisticsSnapshot(newKey, newGeneration, newTakenAtMillis, index, indexUuid, minDocFreq, fields);
    }

    public byte[] encode() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        encode(bytes);
        return bytes.toByteArray();
    }

    /** Writes the byte form to {@code stream} (the FSTs are written straight from the heap, not copied first). */
    public void encode(OutputStream stream) throws IOException {
        try (DataOutputStream out = new DataOutputStream(stream)) {
            out.write(MAGIC);
            out.writeInt(FORMAT);
            out.writeUTF(key);
            out.writeLong(generation);
            out.writeLong(takenAtMillis);
            out.writeUTF(index);
            out.writeUTF(indexUuid);
            out.writeInt(minDocFreq);
            out.writeInt(fields.size());
            for (FieldTermStatistics f : fields.values()) {
                out.writeUTF(f.field());
                out.writeLong(f.maxDoc());
                out.writeLong(f.docCount());
                out.writeLong(f.sumTotalTermFreq());
                out.writeLong(f.sumDocFreq());
                out.writeLong(f.termCount());
                f.writeFst(out);
            }
        }
    }

    /** @throws IOException when the bytes are not a snapshot of this format */
    public static StatisticsSnapshot decode(byte[] data) throws IOException {
        return decode(new ByteArrayInputStream(data));
    }

    /** Reads the byte form from {@code stream} (each FST read straight into its heap blocks). */
    public static StatisticsSnapshot decode(InputStream stream) throws IOException {
        try (DataInputStream in = new DataInputStream(stream)) {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IOException("not a qidf statistics snapshot");
            }
            int format = in.readInt();
            if (format != FORMAT) {
                throw new IOException("statistics snapshot format " + format + " is not " + FORMAT
                    + ": take the snapshot again with this plugin");
            }
            String key = in.readUTF();
            long generation = in.readLong();
            long takenAt = in.readLong();
            String index = in.readUTF();
            String indexUuid = in.readUTF();
            int minDocFreq = in.readInt();
            int n = in.readInt();
            Map<String, FieldTermStatistics> fields = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String field = in.readUTF();
                long maxDoc = in.readLong();
                long docCount = in.readLong();
                long sumTtf = in.readLong();
                long sumDf = in.readLong();
                long terms = in.readLong();
                FST<Long> fst = FieldTermStatistics.readFst(in);
                fields.put(field, new FieldTermStatistics(field, maxDoc, docCount, sumTtf, sumDf, terms, fst));
            }
            return new StatisticsSnapshot(key, generation, takenAt, index, indexUuid, minDocFreq, fields);
        }
    }
}
