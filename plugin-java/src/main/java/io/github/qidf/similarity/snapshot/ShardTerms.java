package io.github.qidf.similarity.snapshot;

import org.apache.lucene.store.ByteArrayDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.BytesRefBuilder;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One shard's term statistics on their way to the node that merges them: per field its
 * collection statistics and every term with its df, in term order, prefix-compressed (a term
 * is the length of the prefix it shares with the one before, then the rest, then the df as
 * variable-length integers). Cheaper to write on the shard and to read in the merge than an
 * FST (no node hashing on the shard, no arc walking in the merge); only the merged, index-wide
 * statistics become an FST, the form that is held and looked up.
 */
public final class ShardTerms {

    private static final byte[] MAGIC = "QIDFTRM1".getBytes(StandardCharsets.US_ASCII);

    /** One field's block: its statistics and the bytes of its term entries. */
    public static final class Field {
        public final String name;
        public final long maxDoc;
        public final long docCount;
        public final long sumTotalTermFreq;
        public final long sumDocFreq;
        public final long termCount;
        final byte[] data;
        final int offset;
        final int length;

        Field(String name, long maxDoc, long docCount, long sumTotalTermFreq, long sumDocFreq, long termCount,
              byte[] data, int offset, int length) {
            this.name = name;
            this.maxDoc = maxDoc;
            this.docCount = docCount;
            this.sumTotalTermFreq = sumTotalTermFreq;
            this.sumDocFreq = sumDocFreq;
            this.termCount = termCount;
            this.data = data;
            this.offset = offset;
            this.length = length;
        }

        /** The field's terms, in order. */
        public Cursor cursor() {
            return new Cursor(this);
        }
    }

    /** Reads one field's terms in order: {@link #next()} then {@link #term()} and {@link #docFreq()}. */
    public static final class Cursor {
        private final ByteArrayDataInput in;
        private final long count;
        private long read;
        private final BytesRefBuilder term = new BytesRefBuilder();
        private long docFreq;

        Cursor(Field field) {
            this.in = new ByteArrayDataInput(field.data, field.offset, field.length);
            this.count = field.termCount;
        }

        /** Moves to the next term; false after the last. */
        public boolean next() {
            if (read == count) {
                return false;
            }
            int prefix = in.readVInt();
            int suffix = in.readVInt();
            term.setLength(prefix);
            term.grow(prefix + suffix);
            in.readBytes(term.bytes(), prefix, suffix);
            term.setLength(prefix + suffix);
            docFreq = in.readVLong();
            read++;
            return true;
        }

        public BytesRef term() {
            return term.get();
        }

        public long docFreq() {
            return docFreq;
        }
    }

    /** Writes fields one after the other: {@link #startField}, terms in order, {@link #endField}. */
    public static final class Writer {
        private final ByteBuffersDataOutput out = new ByteBuffersDataOutput();
        private final List<Object[]> headers = new ArrayList<>();
        private ByteBuffersDataOutput terms;
        private final BytesRefBuilder last = new BytesRefBuilder();
        private long count;

        public void startField() {
            terms = new ByteBuffersDataOutput();
            last.clear();
            count = 0;
        }

        public void add(BytesRef term, long docFreq) throws IOException {
            int prefix = 0;
            int max = Math.min(last.length(), term.length);
            byte[] a = last.bytes();
            while (prefix < max && a[prefix] == term.bytes[term.offset + prefix]) {
                prefix++;
            }
            terms.writeVInt(prefix);
            terms.writeVInt(term.length - prefix);
            terms.writeBytes(term.bytes, term.offset + prefix, term.length - prefix);
            terms.writeVLong(docFreq);
            last.copyBytes(term);
            count++;
        }

        public void endField(String name, long maxDoc, long docCount, long sumTotalTermFreq, long sumDocFreq) {
            headers.add(new Object[] {name, maxDoc, docCount, sumTotalTermFreq, sumDocFreq, count, terms});
            terms = null;
        }

        public byte[] toBytes() throws IOException {
            out.writeBytes(MAGIC, MAGIC.length);
            out.writeVInt(headers.size());
            for (Object[] h : headers) {
                ByteBuffersDataOutput block = (ByteBuffersDataOutput) h[6];
                out.writeString((String) h[0]);
                for (int i = 1; i <= 5; i++) {
                    out.writeVLong((Long) h[i]);
                }
                out.writeVLong(block.size());
                block.copyTo(out);
            }
            return out.toArrayCopy();
        }
    }

    private ShardTerms() {}

    /** The fields of an encoded report; their term bytes are read in place, not copied. */
    public static List<Field> read(byte[] data) throws IOException {
        ByteArrayDataInput in = new ByteArrayDataInput(data);
        byte[] magic = new byte[MAGIC.length];
        in.readBytes(magic, 0, magic.length);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IOException("not a qidf shard term report");
        }
        int n = in.readVInt();
        List<Field> fields = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = in.readString();
            long maxDoc = in.readVLong();
            long docCount = in.readVLong();
            long sumTtf = in.readVLong();
            long sumDf = in.readVLong();
            long terms = in.readVLong();
            int length = Math.toIntExact(in.readVLong());
            int offset = in.getPosition();
            fields.add(new Field(name, maxDoc, docCount, sumTtf, sumDf, terms, data, offset, length));
            in.skipBytes(length);
        }
        return fields;
    }
}
