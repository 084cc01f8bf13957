package io.github.qidf.similarity.snapshot;

import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * Reads one shard's term statistics from the reader its searches use, exactly as the dfs phase
 * of {@code dfs_query_then_fetch} reads them: a term's df is the sum over segments of each
 * segment's {@code TermsEnum.docFreq()} (documents deleted but not yet merged away included,
 * as in Lucene's {@code TermStates}), and a field's statistics are summed over segments as
 * {@code IndexSearcher.collectionStatistics} sums them ({@code maxDoc} of the whole reader).
 */
public final class ShardStatisticsReader {

    private ShardStatisticsReader() {}

    /**
     * The statistics of {@code fields} (every field with norms and term frequencies when empty:
     * the fields a BM25-family similarity scores) in one shard, every term kept, as
     * {@link ShardTerms} bytes.
     *
     * @param cancelled polled between terms; true stops the walk with a {@link java.util.concurrent.CancellationException}
     */
    public static byte[] read(IndexReader reader, Collection<String> fields, BooleanSupplier cancelled)
        throws IOException {
        ShardTerms.Writer out = new ShardTerms.Writer();
        for (String field : fields.isEmpty() ? scoredFields(reader) : new TreeSet<>(fields)) {
            readField(reader, field, out, cancelled);
        }
        return out.toBytes();
    }

    /** Fields indexed with term frequencies and norms, in name order. */
    public static List<String> scoredFields(IndexReader reader) {
        TreeSet<String> names = new TreeSet<>();
        for (LeafReaderContext leaf : reader.leaves()) {
            for (FieldInfo info : leaf.reader().getFieldInfos()) {
                if (info.getIndexOptions().compareTo(IndexOptions.DOCS_AND_FREQS) >= 0 && !info.omitsNorms()) {
                    names.add(info.name);
                }
            }
        }
        return new ArrayList<>(names);
    }

    private static void readField(IndexReader reader, String field, ShardTerms.Writer out, BooleanSupplier cancelled)
        throws IOException {
        long docCount = 0;
        long sumTotalTermFreq = 0;
        long sumDocFreq = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = leaf.reader().terms(field);
            if (terms != null) {
                docCount += terms.getDocCount();
                sumTotalTermFreq += terms.getSumTotalTermFreq();
                sumDocFreq += terms.getSumDocFreq();
            }
        }
        if (docCount == 0) {
            return; // as IndexSearcher.collectionStatistics: no statistics for a field no document has
        }
        out.startField();
        Terms merged = MultiTerms.getTerms(reader, field);
        if (merged != null) {
            TermsEnum it = merged.iterator();
            int polled = 0;
            for (BytesRef term = it.next(); term != null; term = it.next()) {
                if ((++polled & 0xFFF) == 0 && cancelled.getAsBoolean()) {
                    throw new java.util.concurrent.CancellationException("statistics snapshot cancelled");
                }
                out.add(term, it.docFreq());
            }
        }
        out.endField(field, reader.maxDoc(), docCount, sumTotalTermFreq, sumDocFreq);
    }
}
