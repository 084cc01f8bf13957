package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.action.ActionType;
import org.elasticsearch.xcontent.XContentParser;
import org.elasticsearch.rest.RestHandler.Route;
import org.elasticsearch.rest.RestRequest;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.elasticsearch.rest.RestRequest.Method.DELETE;
import static org.elasticsearch.rest.RestRequest.Method.GET;
import static org.elasticsearch.rest.RestRequest.Method.POST;
import static org.elasticsearch.rest.RestRequest.Method.PUT;

/**
 * The REST side of {@code _qidf/stats_snapshot} (the handler itself is a few lines per
 * engine line, whose client packages differ): take ({@code PUT|POST /{key}} with {@code {"index": ...}}),
 * read ({@code GET /{key}}, {@code GET /} for every key), load on every node
 * ({@code POST /{key}/_load}) and delete ({@code DELETE /{key}}).
 */
public final class SnapshotRestRequests {

    public static final String BASE = "/_qidf/stats_snapshot";
    static final int DEFAULT_MIN_DOC_FREQ = 2;

    private SnapshotRestRequests() {}

    public static final String NAME = "qidf_stats_snapshot";

    /** The routes of the REST handler. */
    public static List<Route> routes() {
        return List.of(
            new Route(PUT, BASE + "/{key}"),
            new Route(POST, BASE + "/{key}"),
            new Route(GET, BASE + "/{key}"),
            new Route(GET, BASE),
            new Route(POST, BASE + "/{key}/_load"),
            new Route(DELETE, BASE + "/{key}")
        );
    }

    /** A parsed REST request: which action, with what. */
    public static final class Parsed {
        public final ActionType<SnapshotResponse> action;
        public final SnapshotRequest request;

        Parsed(ActionType<SnapshotResponse> action, SnapshotRequest request) {
            this.action = action;
            this.request = request;
        }
    }

    /** The action and request a REST call of {@link #routes()} asks for. */
    public static Parsed parse(RestRequest request) throws IOException {
        String key = request.param("key");
        if (request.method() == GET) {
            return new Parsed(SnapshotActions.GET, new SnapshotRequest(key, null, null, 1, null));
        }
        if (request.method() == DELETE) {
            return new Parsed(SnapshotActions.DELETE, new SnapshotRequest(key, null, null, 1, null));
        }
        if (request.path().endsWith("/_load")) {
            return new Parsed(SnapshotActions.LOAD, new SnapshotRequest(key, null, null, 1, null));
        }
        Map<String, Object> body = Map.of();
        if (request.hasContentOrSourceParam()) {
            try (XContentParser parser = request.contentOrSourceParamParser()) {
                body = parser.map();
            }
        }
        return new Parsed(SnapshotActions.TAKE, takeRequest(key, body));
    }

    static SnapshotRequest takeRequest(String key, Map<String, Object> body) {
        for (String name : body.keySet()) {
            if (!List.of("index", "fields", "min_doc_freq", "owner").contains(name)) {
                throw new IllegalArgumentException("unknown key [" + name + "] in a statistics snapshot take; allowed: "
                    + "[index, fields, min_doc_freq, owner]");
            }
        }
        Object index = body.get("index");
        if (!(index instanceof String) || ((String) index).isEmpty()) {
            throw new IllegalArgumentException("a statistics snapshot take needs [index]: the index to read");
        }
        List<String> fields = new ArrayList<>();
        Object given = body.get("fields");
        if (given instanceof List) {
            for (Object f : (List<?>) given) {
                fields.add(String.valueOf(f));
            }
        } else if (given != null) {
            throw new IllegalArgumentException("[fields] must be a list of field names");
        }
        Object min = body.getOrDefault("min_doc_freq", DEFAULT_MIN_DOC_FREQ);
        if (!(min instanceof Number)) {
            throw new IllegalArgumentException("[min_doc_freq] must be a number");
        }
        Object owner = body.get("owner");
        return new SnapshotRequest(key, (String) index, fields, ((Number) min).intValue(), owner == null ? null : owner.toString());
    }
}
