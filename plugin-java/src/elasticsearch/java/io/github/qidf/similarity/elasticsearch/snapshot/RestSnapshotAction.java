package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.client.internal.node.NodeClient;
import org.elasticsearch.rest.BaseRestHandler;
import org.elasticsearch.rest.RestRequest;
import org.elasticsearch.rest.action.RestToXContentListener;

import java.io.IOException;
import java.util.List;

/** {@code _qidf/stats_snapshot} (see {@link SnapshotRestRequests}). */
public final class RestSnapshotAction extends BaseRestHandler {

    @Override
    public String getName() {
        return SnapshotRestRequests.NAME;
    }

    @Override
    public List<Route> routes() {
        return SnapshotRestRequests.routes();
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) throws IOException {
        SnapshotRestRequests.Parsed parsed = SnapshotRestRequests.parse(request);
        return channel -> client.execute(parsed.action, parsed.request, new RestToXContentListener<>(channel));
    }
}
