package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the nodes action asks each node to do: read its shards of an index ({@link #COLLECT}),
 * load a key's current generation from the store ({@link #LOAD}), drop a key ({@link #EVICT}),
 * or say what it holds ({@link #DESCRIBE}).
 */
public final class SnapshotNodeOp implements Writeable {

    public static final String COLLECT = "collect";
    public static final String LOAD = "load";
    public static final String EVICT = "evict";
    public static final String DESCRIBE = "describe";

    final String op;
    final String key;
    final String index;
    final String indexUuid;
    final List<String> fields;
    final Map<String, List<Integer>> shardsByNode;

    public SnapshotNodeOp(String op, String key, String index, String indexUuid, List<String> fields,
                          Map<String, List<Integer>> shardsByNode) {
        this.op = op;
        this.key = key;
        this.index = index;
        this.indexUuid = indexUuid;
        this.fields = fields == null ? List.of() : List.copyOf(fields);
        this.shardsByNode = shardsByNode == null ? Map.of() : new HashMap<>(shardsByNode);
    }

    public static SnapshotNodeOp keyed(String op, String key) {
        return new SnapshotNodeOp(op, key, null, null, null, null);
    }

    public SnapshotNodeOp(StreamInput in) throws IOException {
        op = in.readString();
        key = in.readOptionalString();
        index = in.readOptionalString();
        indexUuid = in.readOptionalString();
        fields = in.readStringList();
        int n = in.readVInt();
        Map<String, List<Integer>> byNode = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String node = in.readString();
            int m = in.readVInt();
            List<Integer> shards = new java.util.ArrayList<>();
            for (int j = 0; j < m; j++) {
                shards.add(in.readVInt());
            }
            byNode.put(node, shards);
        }
        shardsByNode = byNode;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(op);
        out.writeOptionalString(key);
        out.writeOptionalString(index);
        out.writeOptionalString(indexUuid);
        out.writeStringCollection(fields);
        out.writeVInt(shardsByNode.size());
        for (Map.Entry<String, List<Integer>> e : shardsByNode.entrySet()) {
            out.writeString(e.getKey());
            out.writeVInt(e.getValue().size());
            for (int shard : e.getValue()) {
                out.writeVInt(shard);
            }
        }
    }
}
