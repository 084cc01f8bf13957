package io.github.qidf.similarity.snapshot;

import org.apache.lucene.util.BytesRefBuilder;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * Merges the statistics of every shard of an index into index-wide ones, the way the
 * coordinating node of a {@code dfs_query_then_fetch} search aggregates its shards' dfs
 * results: per term the sum of the shards' df; per field the sums of {@code maxDoc},
 * {@code docCount}, {@code sumTotalTermFreq} and {@code sumDocFreq}.
 *
 * <p>The shards' term lists are read side by side in term order (a k-way merge), so the
 * merged FST is built in one pass with no term held in memory beyond the current one of each
 * shard.
 */
public final class SnapshotMerger {

    private SnapshotMerger() {}

    /**
     * @param shards one {@link ShardTerms} report per shard (one copy of each shard: replicas
     *     would count twice)
     * @param minDocFreq terms whose index-wide df is below this are left out (1 keeps all)
     */
    public static StatisticsSnapshot merge(List<byte[]> shards, String index, String indexUuid,
                                           int minDocFreq, BooleanSupplier cancelled) throws IOException {
        Map<String, List<ShardTerms.Field>> byField = new TreeMap<>();
        for (byte[] shard : shards) {
            for (ShardTerms.Field f : ShardTerms.read(shard)) {
                byField.computeIfAbsent(f.name, k -> new ArrayList<>()).add(f);
            }
        }
        Map<String, FieldTermStatistics> fields = new LinkedHashMap<>();
        for (Map.Entry<String, List<ShardTerms.Field>> e : byField.entrySet()) {
            fields.put(e.getKey(), mergeField(e.getKey(), e.getValue(), minDocFreq, cancelled));
        }
        return new StatisticsSnapshot("", 0L, System.currentTimeMillis(), index, indexUuid, minDocFreq, fields);
    }

    static FieldTermStatistics mergeField(String field, List<ShardTerms.Field> parts, int minDocFreq,
                                          BooleanSupplier cancelled) throws IOException {
        long maxDoc = 0;
        long docCount = 0;
        long sumTtf = 0;
        long sumDf = 0;
        PriorityQueue<ShardTerms.Cursor> queue = new PriorityQueue<>(
            Math.max(1, parts.size()), Comparator.comparing(ShardTerms.Cursor::term)
        );
        for (ShardTerms.Field p : parts) {
            maxDoc += p.maxDoc;
            docCount += p.docCount;
            sumTtf += p.sumTotalTermFreq;
            sumDf += p.sumDocFreq;
            ShardTerms.Cursor c = p.cursor();
            if (c.next()) {
                queue.add(c);
            }
        }
        FieldStatisticsBuilder builder = new FieldStatisticsBuilder(field);
        BytesRefBuilder term = new BytesRefBuilder();
        int polled = 0;
        while (!queue.isEmpty()) {
            if ((++polled & 0xFFF) == 0 && cancelled.getAsBoolean()) {
                throw new java.util.concurrent.CancellationException("statistics snapshot cancelled");
            }
            ShardTerms.Cursor head = queue.poll();
            term.copyBytes(head.term());
            long df = head.docFreq();
            if (head.next()) {
                queue.add(head);
            }
            while (!queue.isEmpty() && queue.peek().term().equals(term.get())) {
                ShardTerms.Cursor same = queue.poll();
                df += same.docFreq();
                if (same.next()) {
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
