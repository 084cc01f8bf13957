package io.github.qidf.similarity.snapshot;

/** Where a similarity finds the snapshot its settings name: the node's {@link SnapshotCache}. */
@FunctionalInterface
public interface SnapshotSource {

    /** Never reads anything but memory: it is called while a search builds its scorers. */
    StatisticsSnapshot get(String key);

    /** No snapshot anywhere (the similarity then uses the shard's own statistics). */
    SnapshotSource NONE = key -> null;
}
