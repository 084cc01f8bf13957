package io.github.qidf.similarity.elasticsearch.snapshot;

import io.github.qidf.similarity.snapshot.SnapshotStore;

import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.ResourceAlreadyExistsException;
import org.elasticsearch.action.DocWriteRequest;
import org.elasticsearch.action.DocWriteResponse;
import org.elasticsearch.action.admin.indices.create.CreateIndexRequest;
import org.elasticsearch.action.admin.indices.refresh.RefreshRequest;
import org.elasticsearch.action.delete.DeleteRequest;
import org.elasticsearch.action.get.GetRequest;
import org.elasticsearch.action.get.GetResponse;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.action.search.SearchRequest;
import org.elasticsearch.action.search.SearchResponse;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentFactory;
import org.elasticsearch.index.IndexNotFoundException;
import org.elasticsearch.index.engine.VersionConflictEngineException;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.search.SearchHit;
import org.elasticsearch.search.builder.SearchSourceBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** {@link SnapshotStore} on an Elasticsearch node: the node's client, under the plugin's own identity. */
public final class ElasticsearchSnapshotStore implements SnapshotStore {

    private final Client client;
    private final ClusterService clusterService;

    public ElasticsearchSnapshotStore(Client client, ClusterService clusterService) {
        this.client = client;
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
        return EsCompat.hasIndex(clusterService.state(), INDEX);
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
            client.admin().indices().create(create).actionGet();
        } catch (RuntimeException e) {
            if (!(ExceptionsHelper.unwrapCause(e) instanceof ResourceAlreadyExistsException)) {
                throw e;
            }
        }
    }

    @Override
    public Doc get(String id) {
        try {
            GetResponse r = client.get(new GetRequest(INDEX, id)).actionGet();
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
            DocWriteResponse r = client.index(request).actionGet();
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
            client.index(new IndexRequest(INDEX).id(id).source(source)).actionGet();
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
            client.delete(request).actionGet();
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
        SearchResponse r = client.search(search).actionGet();
        try {
            for (SearchHit hit : r.getHits().getHits()) {
                ids.add(hit.getId());
            }
        } finally {
            r.decRef();
        }
        return ids;
    }

    @Override
    public void refresh() {
        if (exists()) {
            client.admin().indices().refresh(new RefreshRequest(INDEX)).actionGet();
        }
    }
}
