package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.IndicesRequest;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

import io.github.qidf.similarity.snapshot.SnapshotKeys;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A request of one of the public snapshot actions: the key (null: every key, for a get), and
 * for a take the index to read, its fields (empty: every field with norms and frequencies),
 * the smallest df kept and the owner recorded.
 */
public final class SnapshotRequest extends ActionRequest implements IndicesRequest {

    private final String key;
    private final String index;
    private final List<String> fields;
    private final int minDocFreq;
    private final String owner;

    public SnapshotRequest(String key, String index, List<String> fields, int minDocFreq, String owner) {
        this.key = key;
        this.index = index;
        this.fields = fields == null ? List.of() : List.copyOf(fields);
        this.minDocFreq = minDocFreq;
        this.owner = owner;
    }

    public SnapshotRequest(StreamInput in) throws IOException {
        super(in);
        key = in.readOptionalString();
        index = in.readOptionalString();
        fields = in.readStringList();
        minDocFreq = in.readVInt();
        owner = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeOptionalString(key);
        out.writeOptionalString(index);
        out.writeStringCollection(fields);
        out.writeVInt(minDocFreq);
        out.writeOptionalString(owner);
    }

    public String key() {
        return key;
    }

    public String index() {
        return index;
    }

    public List<String> fields() {
        return fields;
    }

    public int minDocFreq() {
        return minDocFreq;
    }

    public String owner() {
        return owner;
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = null;
        if (key != null) {
            String problem = SnapshotKeys.problem(key);
            if (problem != null) {
                e = new ActionRequestValidationException();
                e.addValidationError("snapshot key [" + key + "] " + problem);
            }
        }
        if (minDocFreq < 1) {
            e = e == null ? new ActionRequestValidationException() : e;
            e.addValidationError("min_doc_freq must be at least 1, got " + minDocFreq);
        }
        return e;
    }

    /** A take is an action on the index it reads; the others name no index. */
    @Override
    public String[] indices() {
        return index == null ? new String[0] : new String[] {index};
    }

    @Override
    public IndicesOptions indicesOptions() {
        return IndicesOptions.strictSingleIndexNoExpandForbidClosed();
    }

    @Override
    public String getDescription() {
        List<String> parts = new ArrayList<>();
        parts.add("key[" + key + "]");
        if (index != null) {
            parts.add("index[" + index + "]");
        }
        return "qidf statistics snapshot " + String.join(" ", parts);
    }
}
