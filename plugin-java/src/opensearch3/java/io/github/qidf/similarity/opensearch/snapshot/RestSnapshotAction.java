package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.transport.client.node.NodeClient;
import org.opensearch.rest.BaseRestHandler;
import org.opensearch.rest.RestRequest;
import org.opensearch.rest.action.RestToXContentListener;

import java.io.IOException;
import java.util.List;

/** {@code _plugins/qidf/stats_snapshot} (see {@link SnapshotRestRequests}); OpenSearch 3.x's client. */
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
