package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.action.support.nodes.BaseNodesRequest;

/** The nodes action's request (local to the node that fans out): one {@link SnapshotNodeOp} for the nodes named. */
public final class SnapshotNodesRequest extends BaseNodesRequest {

    final SnapshotNodeOp op;

    public SnapshotNodesRequest(SnapshotNodeOp op, String... nodeIds) {
        super(nodeIds);
        this.op = op;
    }
}
