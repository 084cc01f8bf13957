package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;
import org.elasticsearch.xcontent.ToXContentObject;
import org.elasticsearch.xcontent.XContentBuilder;

import java.io.IOException;
import java.util.Map;

/** The answer of a public snapshot action: a JSON object (numbers, strings, lists and objects). */
public final class SnapshotResponse extends ActionResponse implements ToXContentObject {

    private final Map<String, Object> body;

    public SnapshotResponse(Map<String, Object> body) {
        this.body = body;
    }

    public SnapshotResponse(StreamInput in) throws IOException {
        body = in.readGenericMap();
    }

    public Map<String, Object> body() {
        return body;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeGenericMap(body);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.map(body);
    }
}
