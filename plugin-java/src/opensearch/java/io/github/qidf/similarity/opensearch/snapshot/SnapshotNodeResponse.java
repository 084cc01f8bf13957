package io.github.qidf.similarity.opensearch.snapshot;

import io.github.qidf.similarity.snapshot.ShardReport;

import org.opensearch.action.support.nodes.BaseNodeResponse;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One node's answer: its shards' reports (collect), or what it holds (the other ops). */
public final class SnapshotNodeResponse extends BaseNodeResponse {

    final List<ShardReport> reports;
    final Map<String, Object> info;

    public SnapshotNodeResponse(DiscoveryNode node, List<ShardReport> reports, Map<String, Object> info) {
        super(node);
        this.reports = reports;
        this.info = info;
    }

    public SnapshotNodeResponse(StreamInput in) throws IOException {
        super(in);
        int n = in.readVInt();
        reports = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            reports.add(new ShardReport(in.readVInt(), in.readByteArray(), in.readVLong(), in.readZLong(), in.readZLong()));
        }
        info = in.readMap();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeVInt(reports.size());
        for (ShardReport r : reports) {
            out.writeVInt(r.shard);
            out.writeByteArray(r.statistics);
            out.writeVLong(r.liveDocs);
            out.writeZLong(r.maxSeqNo);
            out.writeZLong(r.cpuMillis);
        }
        out.writeMap(info);
    }
}
