package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.transport.AbstractTransportRequest;

import java.io.IOException;

/** One node's part of the nodes action (Elasticsearch 9.x: TransportRequest is an interface). */
public final class SnapshotNodeRequest extends AbstractTransportRequest {

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
