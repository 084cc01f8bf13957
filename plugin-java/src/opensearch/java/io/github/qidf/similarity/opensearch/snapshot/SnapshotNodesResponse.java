package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.action.FailedNodeException;
import org.opensearch.action.support.nodes.BaseNodesResponse;
import org.opensearch.cluster.ClusterName;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

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
        return in.readList(SnapshotNodeResponse::new);
    }

    @Override
    protected void writeNodesTo(StreamOutput out, List<SnapshotNodeResponse> nodes) throws IOException {
        out.writeList(nodes);
    }
}
