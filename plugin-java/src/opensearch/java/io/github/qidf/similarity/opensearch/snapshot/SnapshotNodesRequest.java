package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.action.support.nodes.BaseNodesRequest;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

import java.io.IOException;

/** The nodes action's request: one {@link SnapshotNodeOp} for the nodes named. */
public final class SnapshotNodesRequest extends BaseNodesRequest<SnapshotNodesRequest> {

    final SnapshotNodeOp op;

    public SnapshotNodesRequest(SnapshotNodeOp op, String... nodeIds) {
        super(nodeIds);
        this.op = op;
    }

    public SnapshotNodesRequest(StreamInput in) throws IOException {
        super(in);
        op = new SnapshotNodeOp(in);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        op.writeTo(out);
    }
}
