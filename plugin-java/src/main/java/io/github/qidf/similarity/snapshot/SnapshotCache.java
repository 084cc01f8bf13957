package io.github.qidf.similarity.snapshot;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The statistics snapshots one node holds, by key: read by the similarity on the search thread
 * (a map lookup, no I/O), replaced whole by the loader when a newer generation is published.
 */
public final class SnapshotCache implements SnapshotSource {

    private final ConcurrentHashMap<String, StatisticsSnapshot> byKey = new ConcurrentHashMap<>();

    @Override
    public StatisticsSnapshot get(String key) {
        return byKey.get(key);
    }

    /**
     * Holds {@code snapshot} unless a newer generation of its key is held already (a slow load
     * must not replace the result of a later one). Returns what is held afterwards.
     */
    public StatisticsSnapshot offer(StatisticsSnapshot snapshot) {
        return byKey.merge(snapshot.key(), snapshot,
            (held, offered) -> offered.generation() >= held.generation() ? offered : held);
    }

    public StatisticsSnapshot remove(String key) {
        return byKey.remove(key);
    }

    /** A copy of what is held, in key order. */
    public Map<String, StatisticsSnapshot> entries() {
        return new TreeMap<>(byKey);
    }
}
