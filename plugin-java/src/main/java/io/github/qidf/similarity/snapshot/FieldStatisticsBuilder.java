package io.github.qidf.similarity.snapshot;

import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IntsRefBuilder;
import org.apache.lucene.util.fst.FST;
import org.apache.lucene.util.fst.FSTCompiler;
import org.apache.lucene.util.fst.Util;

import java.io.IOException;

/**
 * Builds the {@link FieldTermStatistics} of one field from its terms in sorted (unsigned byte)
 * order, the order in which a {@code TermsEnum} and an FST enumerate them.
 */
final class FieldStatisticsBuilder {

    private final String field;
    private final FSTCompiler<Long> compiler;
    private final IntsRefBuilder scratch = new IntsRefBuilder();
    private long terms;

    FieldStatisticsBuilder(String field) {
        this.field = field;
        this.compiler = new FSTCompiler.Builder<>(FST.INPUT_TYPE.BYTE1, FieldTermStatistics.OUTPUTS).build();
    }

    /** Adds a term; terms must come in increasing order, each once, with {@code docFreq >= 1}. */
    void add(BytesRef term, long docFreq) throws IOException {
        compiler.add(Util.toIntsRef(term, scratch), docFreq);
        terms++;
    }

    long termCount() {
        return terms;
    }

    FieldTermStatistics build(long maxDoc, long docCount, long sumTotalTermFreq, long sumDocFreq) throws IOException {
        FST<Long> fst = null;
        if (terms > 0) {
            FST.FSTMetadata<Long> metadata = compiler.compile();
            fst = FST.fromFSTReader(metadata, compiler.getFSTReader());
        }
        return new FieldTermStatistics(field, maxDoc, docCount, sumTotalTermFreq, sumDocFreq, terms, fst);
    }
}
