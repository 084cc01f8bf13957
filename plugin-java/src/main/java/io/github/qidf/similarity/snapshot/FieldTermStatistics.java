package io.github.qidf.similarity.snapshot;

import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.DataOutput;
import org.apache.lucene.store.InputStreamDataInput;
import org.apache.lucene.store.OutputStreamDataOutput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.fst.FST;
import org.apache.lucene.util.fst.PositiveIntOutputs;
import org.apache.lucene.util.fst.Util;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The statistics of one field, as a search with {@code dfs_query_then_fetch} aggregates them:
 * the collection statistics ({@code maxDoc}, {@code docCount}, {@code sumTotalTermFreq},
 * {@code sumDocFreq}, summed over shards) and each term's document frequency, held in a Lucene
 * FST from the term's bytes to its df (a few bytes per term, shared prefixes and suffixes stored
 * once, looked up without allocation of strings).
 *
 * <p>Immutable and safe to share between search threads: every lookup takes its own
 * {@link FST.BytesReader}.
 */
public final class FieldTermStatistics {

    static final PositiveIntOutputs OUTPUTS = PositiveIntOutputs.getSingleton();

    private final String field;
    private final long maxDoc;
    private final long docCount;
    private final long sumTotalTermFreq;
    private final long sumDocFreq;
    private final long termCount;
    private final FST<Long> fst; // null when the field holds no term

    FieldTermStatistics(String field, long maxDoc, long docCount, long sumTotalTermFreq, long sumDocFreq,
                        long termCount, FST<Long> fst) {
        this.field = field;
        this.maxDoc = maxDoc;
        this.docCount = docCount;
        this.sumTotalTermFreq = sumTotalTermFreq;
        this.sumDocFreq = sumDocFreq;
        this.termCount = termCount;
        this.fst = fst;
    }

    public String field() {
        return field;
    }

    public long maxDoc() {
        return maxDoc;
    }

    /** Documents that have the field (BM25's N), deleted ones not yet merged away included. */
    public long docCount() {
        return docCount;
    }

    /** Sum of the field's lengths: with {@link #docCount()}, BM25's average length. */
    public long sumTotalTermFreq() {
        return sumTotalTermFreq;
    }

    public long sumDocFreq() {
        return sumDocFreq;
    }

    /** Terms held (a snapshot may leave out terms of one document: see {@link StatisticsSnapshot#minDocFreq()}). */
    public long termCount() {
        return termCount;
    }

    /** The term's document frequency, or 0 when the term is not held. */
    public long docFreq(BytesRef term) {
        if (fst == null) {
            return 0L;
        }
        try {
            Long df = Util.get(fst, term);
            return df == null ? 0L : df;
        } catch (IOException e) { // the FST lives on the heap: no I/O happens
            throw new UncheckedIOException(e);
        }
    }

    /** The FST itself (null when the field holds no term), for iteration by the merger. */
    FST<Long> fst() {
        return fst;
    }

    /** Bytes of heap the FST takes. */
    public long ramBytesUsed() {
        return fst == null ? 0L : fst.ramBytesUsed();
    }

    /**
     * Writes a presence flag, then the FST's metadata (length-prefixed) and body (length-prefixed,
     * streamed from the heap).
     */
    void writeFst(DataOutputStream out) throws IOException {
        out.writeBoolean(fst != null);
        if (fst == null) {
            return;
        }
        // The metadata is written ahead of the body by FST.save; the body goes straight from the
        // heap to the stream (a copy of a large FST in memory is what this avoids).
        ByteBuffersDataOutput meta = new ByteBuffersDataOutput();
        fst.save(meta, Discard.INSTANCE);
        out.writeInt(Math.toIntExact(meta.size()));
        meta.copyTo(new OutputStreamDataOutput(out));
        out.writeLong(fst.numBytes());
        fst.save(new ByteBuffersDataOutput(), new OutputStreamDataOutput(out));
    }

    /** A DataOutput that drops what it is given. */
    private static final class Discard extends DataOutput {
        static final Discard INSTANCE = new Discard();

        @Override
        public void writeByte(byte b) {}

        @Override
        public void writeBytes(byte[] b, int offset, int length) {}
    }

    /** Reads what {@link #writeFst} wrote; null when no FST was written. */
    static FST<Long> readFst(DataInputStream in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        byte[] meta = new byte[in.readInt()];
        in.readFully(meta);
        long bodyLength = in.readLong();
        FST.FSTMetadata<Long> metadata = FST.readMetadata(new ByteArrayDataInput(meta), OUTPUTS);
        FST<Long> fst = new FST<>(metadata, new InputStreamDataInput(in));
        if (fst.numBytes() != bodyLength) {
            throw new IOException("statistics snapshot: an FST body of " + fst.numBytes() + " bytes where "
                + bodyLength + " were written");
        }
        return fst;
    }
}
