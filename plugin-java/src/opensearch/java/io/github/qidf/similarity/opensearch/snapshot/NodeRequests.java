package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.core.action.ActionResponse;

/**
 * Runs an action on this node and waits for its answer: the node's client, wrapped by the
 * plugin class (whose package differs between OpenSearch 2 and 3). Called on generic threads only.
 */
public interface NodeRequests {

    <Req extends ActionRequest, Resp extends ActionResponse> Resp execute(ActionType<Resp> type, Req request);
}
