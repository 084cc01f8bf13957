package io.github.qidf.similarity.snapshot;

import org.apache.lucene.util.BytesRefBuilder;
import org.apache.lucene.util.fst.BytesRefFSTEnum;
import org.apache.lucene.util.fst.FST;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * Merges the statistics of every shard of an index into index-wide ones, the way the
 * coordinating node of a {@code dfs_query_then_fetch} search aggregates its shards' dfs
 * results: per term the sum of the shards' df; per field the sums of {@code maxDoc},
 * {@code docCount}, {@code sumTotalTermFreq} and {@code sumDocFreq}.
 *
 * <p>The shards' FSTs are walked side by side in term order (a k-way merge), so the merged FST
 * is built in one pass with no term held in memory beyond the current one of each shard.
 */
public final class SnapshotMerger {

    private SnapshotMerger() {}

    /**
     * @param shards one report per shard (one copy of each shard: replicas would count twice)
     * @param minDocFreq terms whose index-wide df is below this are left out (1 keeps all)
     */
    public static StatisticsSnapshot merge(List<StatisticsSnapshot> shards, String index, String indexUuid,
                                           int minDocFreq, BooleanSupplier cancelled) throws IOException {
        TreeSet<String> fieldNames = new TreeSet<>();
        for (StatisticsSnapshot s : shards) {
            fieldNames.addAll(s.fields().keySet());
        }
        Map<String, FieldTermStatistics> fields = new LinkedHashMap<>();
        for (String field : fieldNames) {
            List<FieldTermStatistics> parts = new ArrayList<>();
            for (StatisticsSnapshot s : shards) {
                FieldTermStatistics f = s.field(field);
                if (f != null) {
                    parts.add(f);
                }
            }
            fields.put(field, mergeField(field, parts, minDocFreq, cancelled));
        }
        return new StatisticsSnapshot("", 0L, System.currentTimeMillis(), index, indexUuid, minDocFreq, fields);
    }

    private static final class Cursor {
        final BytesRefFSTEnum<Long> it;
        BytesRefFSTEnum.InputOutput<Long> current;

        Cursor(FST<Long> fst) throws IOException {
            this.it = new BytesRefFSTEnum<>(fst);
            this.current = it.next();
        }

        void advance() throws IOException {
            current = it.next();
        }
    }

    static FieldTermStatistics mergeField(String field, List<FieldTermStatistics> parts, int minDocFreq,
                                          BooleanSupplier cancelled) throws IOException {
        long maxDoc = 0;
        long docCount = 0;
        long sumTtf = 0;
        long sumDf = 0;
        PriorityQueue<Cursor> queue = new PriorityQueue<>(
            Math.max(1, parts.size()), Comparator.comparing((Cursor c) -> c.current.input)
        );
        for (FieldTermStatistics p : parts) {
            maxDoc += p.maxDoc();
            docCount += p.docCount();
            sumTtf += p.sumTotalTermFreq();
            sumDf += p.sumDocFreq();
            if (p.fst() != null) {
                Cursor c = new Cursor(p.fst());
                if (c.current != null) {
                    queue.add(c);
                }
            }
        }
        FieldStatisticsBuilder builder = new FieldStatisticsBuilder(field);
        BytesRefBuilder term = new BytesRefBuilder();
        int polled = 0;
        while (!queue.isEmpty()) {
            if ((++polled & 0xFFF) == 0 && cancelled.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException("statistics snapshot cancelled");
            }
            Cursor head = queue.poll();
            term.copyBytes(head.current.input);
            long df = head.current.output;
            head.advance();
            if (head.current != null) {
                queue.add(head);
            }
            while (!queue.isEmpty() && queue.peek().current.input.equals(term.get())) {
                Cursor same = queue.poll();
                df += same.current.output;
                same.advance();
                if (same.current != null) {
                    queue.add(same);
                }
            }
            if (df >= minDocFreq) {
                builder.add(term.get(), df);
            }
        }
        return builder.build(maxDoc, docCount, sumTtf, sumDf);
    }
}
