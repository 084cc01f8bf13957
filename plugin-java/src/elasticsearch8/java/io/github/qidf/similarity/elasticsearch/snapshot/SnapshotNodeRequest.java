package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.transport.TransportRequest;

import java.io.IOException;

/** One node's part of the nodes action (Elasticsearch 8.x: a TransportRequest class). */
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
