package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.transport.TransportRequest;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

import java.io.IOException;

/** One node's part of the nodes action (OpenSearch 3.x: a TransportRequest). */
public final class SnapshotNodeRequest extends TransportRequest {

    private final SnapshotNodeOp op;

    public SnapshotNodeRequest(SnapshotNodeOp op) {
        this.op = op;
    }

    public SnapshotNodeRequest(StreamInput in) throws IOException {
        super(in);
        op = new SnapshotNodeOp(in);
    }

    public SnapshotNodeOp op() {
        return op;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        op.writeTo(out);
    }
}
