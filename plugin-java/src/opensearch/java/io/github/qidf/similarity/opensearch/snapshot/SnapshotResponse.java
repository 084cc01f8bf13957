package io.github.qidf.similarity.opensearch.snapshot;

import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.ToXContentObject;
import org.opensearch.core.xcontent.XContentBuilder;

import java.io.IOException;
import java.util.Map;

/** The answer of a public snapshot action: a JSON object (numbers, strings, lists and objects). */
public final class SnapshotResponse extends ActionResponse implements ToXContentObject {

    private final Map<String, Object> body;

    public SnapshotResponse(Map<String, Object> body) {
        this.body = body;
    }

    public SnapshotResponse(StreamInput in) throws IOException {
        super(in);
        body = in.readMap();
    }

    public Map<String, Object> body() {
        return body;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeMap(body);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.map(body);
    }
}
