package io.github.qidf.similarity.snapshot;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * The snapshots one node holds and how it got them: loaded from the store when a take publishes
 * one (the take asks every data node), when the node starts or an index naming one appears
 * (the engine's cluster-state listener calls {@link #ensure}), and dropped when deleted.
 *
 * <p>Loading happens on the executor given (a generic thread pool), never on the thread of a
 * cluster-state update or a search; until a snapshot is loaded, the similarity scores with the
 * shard's own statistics, and {@link #describe} says so.
 */
public final class SnapshotNodeState {

    private final SnapshotCache cache;
    private final Supplier<SnapshotRepository> repository;
    private final Set<String> loading = ConcurrentHashMap.newKeySet();
    private final Map<String, String> errors = new ConcurrentHashMap<>();
    private final Map<String, Long> loadedAt = new ConcurrentHashMap<>();

    /**
     * @param repository the store, once the node has a client (null before)
     */
    public SnapshotNodeState(SnapshotCache cache, Supplier<SnapshotRepository> repository) {
        this.cache = cache;
        this.repository = repository;
    }

    public SnapshotCache cache() {
        return cache;
    }

    /**
     * Loads {@code key}'s current generation now (blocking) unless this node holds it already;
     * drops it when the store has none. Returns what the node holds for the key afterwards.
     */
    public Map<String, Object> load(String key) {
        SnapshotRepository repo = repository.get();
        try {
            Map<String, Object> meta = repo == null ? null : repo.meta(key);
            long stored = SnapshotRepository.generationOf(meta);
            StatisticsSnapshot held = cache.get(key);
            if (stored <= 0) {
                if (meta == null) {
                    evict(key);
                }
            } else if (held == null || held.generation() < stored) {
                StatisticsSnapshot read = repo.load(key);
                if (read == null) {
                    evict(key);
                } else {
                    cache.offer(read);
                    loadedAt.put(key, System.currentTimeMillis());
                }
            }
            errors.remove(key);
        } catch (Exception e) {
            errors.put(key, String.valueOf(e.getMessage()));
        }
        return describe(key);
    }

    /** Drops the key from this node (its indices then score with their shards' own statistics). */
    public void evict(String key) {
        cache.remove(key);
        loadedAt.remove(key);
        errors.remove(key);
    }

    /**
     * Starts loading, on {@code executor}, every key of {@code named} this node does not hold and
     * is not loading (called on every cluster-state change with the keys the indices name).
     */
    public void ensure(Collection<String> named, Executor executor) {
        if (repository.get() == null) {
            return;
        }
        for (String key : new TreeSet<>(named)) {
            if (cache.get(key) != null || !loading.add(key)) {
                continue;
            }
            try {
                executor.execute(() -> {
                    try {
                        load(key);
                    } finally {
                        loading.remove(key);
                    }
                });
            } catch (RuntimeException e) { // the executor is shutting down
                loading.remove(key);
            }
        }
    }

    /** What this node holds for {@code key}: generation, terms, heap, when loaded, or the last load error. */
    public Map<String, Object> describe(String key) {
        Map<String, Object> out = new LinkedHashMap<>();
        StatisticsSnapshot held = cache.get(key);
        out.put("loaded", held != null);
        if (held != null) {
            out.put("generation", held.generation());
            out.put("taken_at", held.takenAtMillis());
            out.put("terms", held.termCount());
            out.put("heap_bytes", held.ramBytesUsed());
            out.put("loaded_at", loadedAt.get(key));
        }
        if (loading.contains(key)) {
            out.put("loading", true);
        }
        String error = errors.get(key);
        if (error != null) {
            out.put("error", error);
        }
        return out;
    }

    /** {@link #describe} for every key this node holds, is loading or failed to load. */
    public Map<String, Object> describeAll() {
        TreeSet<String> keys = new TreeSet<>(cache.entries().keySet());
        keys.addAll(loading);
        keys.addAll(errors.keySet());
        Map<String, Object> out = new TreeMap<>();
        for (String key : keys) {
            out.put(key, describe(key));
        }
        return out;
    }
}
