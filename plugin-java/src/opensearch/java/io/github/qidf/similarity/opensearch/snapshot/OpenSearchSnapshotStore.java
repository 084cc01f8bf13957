package io.github.qidf.similarity.opensearch.snapshot;

import io.github.qidf.similarity.snapshot.SnapshotStore;

import org.opensearch.ExceptionsHelper;
import org.opensearch.ResourceAlreadyExistsException;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.admin.indices.create.CreateIndexAction;
import org.opensearch.action.admin.indices.create.CreateIndexRequest;
import org.opensearch.action.admin.indices.refresh.RefreshAction;
import org.opensearch.action.admin.indices.refresh.RefreshRequest;
import org.opensearch.action.delete.DeleteAction;
import org.opensearch.action.delete.DeleteRequest;
import org.opensearch.action.get.GetAction;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.get.GetResponse;
import org.opensearch.action.index.IndexAction;
import org.opensearch.action.index.IndexRequest;
import org.opensearch.action.index.IndexResponse;
import org.opensearch.action.search.SearchAction;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.index.engine.VersionConflictEngineException;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** {@link SnapshotStore} on an OpenSearch node: the node's client, under the plugin's own identity. */
public final class OpenSearchSnapshotStore implements SnapshotStore {

    private final NodeRequests requests;
    private final ClusterService clusterService;

    public OpenSearchSnapshotStore(NodeRequests requests, ClusterService clusterService) {
        this.requests = requests;
        this.clusterService = clusterService;
    }

    static Map<String, Object> mapping() {
        return Map.of(
            "dynamic", false,
            "properties", Map.of(
                "kind", Map.of("type", "keyword"),
                "key", Map.of("type", "keyword"),
                "token", Map.of("type", "keyword"),
                "body", Map.of("type", "object", "enabled", false)
            )
        );
    }

    @Override
    public boolean exists() {
        return clusterService.state().metadata().hasIndex(INDEX);
    }

    @Override
    public void ensureIndex() {
        if (exists()) {
            return;
        }
        CreateIndexRequest create = new CreateIndexRequest(INDEX)
            .settings(Settings.builder()
                .put("index.number_of_shards", 1)
                .put("index.auto_expand_replicas", "0-1")
                .put("index.hidden", true))
            .mapping(mapping());
        try {
            requests.execute(CreateIndexAction.INSTANCE, create);
        } catch (RuntimeException e) {
            if (!(ExceptionsHelper.unwrapCause(e) instanceof ResourceAlreadyExistsException)) {
                throw e;
            }
        }
    }

    @Override
    public Doc get(String id) {
        try {
            GetResponse r = requests.execute(GetAction.INSTANCE, new GetRequest(INDEX, id));
            if (!r.isExists()) {
                return null;
            }
            return new Doc(id, r.getSourceAsMap(), r.getSeqNo(), r.getPrimaryTerm());
        } catch (RuntimeException e) {
            if (ExceptionsHelper.unwrapCause(e) instanceof IndexNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public Doc put(String id, Map<String, Object> source, Doc expected) {
        IndexRequest request = new IndexRequest(INDEX).id(id).source(source);
        if (expected == null) {
            request.opType(DocWriteRequest.OpType.CREATE);
        } else {
            request.setIfSeqNo(expected.seqNo).setIfPrimaryTerm(expected.primaryTerm);
        }
        try {
            IndexResponse r = requests.execute(IndexAction.INSTANCE, request);
            return new Doc(id, source, r.getSeqNo(), r.getPrimaryTerm());
        } catch (RuntimeException e) {
            if (ExceptionsHelper.unwrapCause(e) instanceof VersionConflictEngineException) {
                throw new Conflict(e.getMessage());
            }
            throw e;
        }
    }

    @Override
    public void putChunk(String id, String key, String token, byte[] data) {
        try {
            XContentBuilder source = XContentFactory.smileBuilder() // binary: no base64 in the stored source
                .startObject()
                .field("kind", "chunk")
                .field("key", key)
                .field("token", token)
                .startObject("body")
                .field("data", data)
                .endObject()
                .endObject();
            requests.execute(IndexAction.INSTANCE, new IndexRequest(INDEX).id(id).source(source));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public byte[] getChunk(String id) {
        Doc doc = get(id);
        if (doc == null) {
            return null;
        }
        Object data = ((Map<String, Object>) doc.source.get("body")).get("data");
        return data instanceof byte[] ? (byte[]) data : Base64.getDecoder().decode((String) data);
    }

    @Override
    public void delete(String id, Doc expected) {
        DeleteRequest request = new DeleteRequest(INDEX, id);
        if (expected != null) {
            request.setIfSeqNo(expected.seqNo).setIfPrimaryTerm(expected.primaryTerm);
        }
        try {
            requests.execute(DeleteAction.INSTANCE, request);
        } catch (RuntimeException e) {
            Throwable cause = ExceptionsHelper.unwrapCause(e);
            if (cause instanceof VersionConflictEngineException) {
                throw new Conflict(e.getMessage());
            }
            if (!(cause instanceof IndexNotFoundException)) {
                throw e;
            }
        }
    }

    @Override
    public List<String> ids(String kind, String key) {
        List<String> ids = new ArrayList<>();
        if (!exists()) {
            return ids;
        }
        var query = QueryBuilders.boolQuery().filter(QueryBuilders.termQuery("kind", kind));
        if (key != null) {
            query.filter(QueryBuilders.termQuery("key", key));
        }
        SearchRequest search = new SearchRequest(INDEX).source(
            new SearchSourceBuilder().query(query).size(10_000).fetchSource(false).sort("_doc")
        );
        SearchResponse r = requests.execute(SearchAction.INSTANCE, search);
        for (SearchHit hit : r.getHits().getHits()) {
            ids.add(hit.getId());
        }
        return ids;
    }

    @Override
    public void refresh() {
        if (exists()) {
            requests.execute(RefreshAction.INSTANCE, new RefreshRequest(INDEX));
        }
    }
}
