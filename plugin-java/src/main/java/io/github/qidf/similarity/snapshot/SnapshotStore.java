package io.github.qidf.similarity.snapshot;

import java.util.List;
import java.util.Map;

/**
 * The documents of qidf's snapshot index ({@link #INDEX}), as each engine's wiring reads and
 * writes them with its own client (under the plugin's own identity: a user who may take a
 * snapshot need not be allowed to write that index). Every call blocks: callers run on a
 * generic thread, never on a network or search thread.
 *
 * <p>Writes of the meta document are conditional (compare and set on sequence number and
 * primary term), so the engine decides who wins when two takes, or a take and a delete, race.
 */
public interface SnapshotStore {

    /** The index holding every snapshot: one meta document per key, the bytes in chunk documents. */
    String INDEX = "qidf-snapshots";

    /** A stored document and the version it was read at. */
    final class Doc {
        public final String id;
        public final Map<String, Object> source;
        public final long seqNo;
        public final long primaryTerm;

        public Doc(String id, Map<String, Object> source, long seqNo, long primaryTerm) {
            this.id = id;
            this.source = source;
            this.seqNo = seqNo;
            this.primaryTerm = primaryTerm;
        }
    }

    /** A conditional write lost: the document changed or vanished since it was read, or exists already. */
    final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Conflict(String message) {
            super(message);
        }
    }

    /** Creates the index (one shard, a replica where there is a node for it, hidden) unless it exists. */
    void ensureIndex();

    /** Whether the index exists. */
    boolean exists();

    /** The document, or null (also when the index does not exist). */
    Doc get(String id);

    /**
     * Writes {@code source} as {@code id}: created when {@code expected} is null (a {@link Conflict}
     * if it exists), else replaced only if it is still at {@code expected}'s version.
     */
    Doc put(String id, Map<String, Object> source, Doc expected);

    /** Writes one chunk of snapshot bytes (unconditionally: chunk ids carry the take's token). */
    void putChunk(String id, String key, String token, byte[] data);

    /** The bytes of a chunk, or null when it does not exist. */
    byte[] getChunk(String id);

    /** Deletes the document if it exists; with {@code expected}, only if it is still at that version. */
    void delete(String id, Doc expected);

    /** Ids of the documents of {@code kind} ({@code meta} or {@code chunk}) for {@code key} (all keys when null). */
    List<String> ids(String kind, String key);

    /** Makes the writes so far visible to {@link #ids} (a refresh of the index). */
    void refresh();
}
