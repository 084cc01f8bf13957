package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.action.FailedNodeException;
import org.elasticsearch.action.support.nodes.BaseNodesResponse;
import org.elasticsearch.cluster.ClusterName;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;

import java.io.IOException;
import java.util.List;

/** The nodes action's answer: every node's {@link SnapshotNodeResponse}, and the nodes that failed. */
public final class SnapshotNodesResponse extends BaseNodesResponse<SnapshotNodeResponse> {

    public SnapshotNodesResponse(ClusterName clusterName, List<SnapshotNodeResponse> nodes, List<FailedNodeException> failures) {
        super(clusterName, nodes, failures);
    }

    public SnapshotNodesResponse(StreamInput in) throws IOException {
        super(in);
    }

    @Override
    protected List<SnapshotNodeResponse> readNodesFrom(StreamInput in) throws IOException {
        return in.readCollectionAsList(in2 -> new SnapshotNodeResponse(in2, null));
    }

    @Override
    protected void writeNodesTo(StreamOutput out, List<SnapshotNodeResponse> nodes) throws IOException {
        out.writeCollection(nodes);
    }
}
