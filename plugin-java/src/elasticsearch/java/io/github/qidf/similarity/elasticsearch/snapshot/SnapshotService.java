package io.github.qidf.similarity.elasticsearch.snapshot;

import io.github.qidf.similarity.snapshot.ShardReport;
import io.github.qidf.similarity.snapshot.SnapshotCache;
import io.github.qidf.similarity.snapshot.SnapshotKeys;
import io.github.qidf.similarity.snapshot.SnapshotNodeState;
import io.github.qidf.similarity.snapshot.SnapshotRepository;
import io.github.qidf.similarity.snapshot.SnapshotStore;

import org.elasticsearch.ElasticsearchStatusException;
import org.elasticsearch.action.FailedNodeException;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.cluster.ClusterChangedEvent;
import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.ClusterStateListener;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.cluster.routing.IndexRoutingTable;
import org.elasticsearch.cluster.routing.IndexShardRoutingTable;
import org.elasticsearch.cluster.routing.ShardRouting;
import org.elasticsearch.cluster.service.ClusterService;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.util.concurrent.ThreadContext;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.index.Index;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.gateway.GatewayService;
import org.elasticsearch.threadpool.ThreadPool;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;

/**
 * The node's side of statistics snapshots: its cache (read by the similarity), the store, and
 * the four public operations. Created by the plugin, started once the node has a client; a
 * cluster-state listener loads every snapshot an index names when the node starts or such an
 * index appears, so a restarted node serves the same scores.
 *
 * <p>Everything here runs on the generic thread pool under the plugin's own identity (a stashed
 * thread context): the user's rights were checked on the public action itself.
 */
public final class SnapshotService implements ClusterStateListener {

    private final SnapshotNodeState nodeState;
    private volatile SnapshotRepository repository;
    private volatile Client client;
    private volatile ClusterService clusterService;
    private volatile ThreadPool threadPool;

    public SnapshotService(SnapshotCache cache) {
        this.nodeState = new SnapshotNodeState(cache, () -> repository);
    }

    /** Called from the plugin's createComponents, once the node has a client. */
    public void start(Client nodeClient, ClusterService cluster, ThreadPool pool) {
        this.client = nodeClient;
        this.clusterService = cluster;
        this.threadPool = pool;
        this.repository = new SnapshotRepository(new ElasticsearchSnapshotStore(nodeClient, cluster));
        cluster.addListener(this);
    }

    public SnapshotNodeState nodeState() {
        return nodeState;
    }

    /** Runs {@code work} on a generic thread under the plugin's identity and answers {@code listener}. */
    public void runAsPlugin(Callable<Map<String, Object>> work, ActionListener<SnapshotResponse> listener) {
        ThreadContext context = threadPool.getThreadContext();
        threadPool.generic().execute(() -> {
            Map<String, Object> result;
            try (ThreadContext.StoredContext ignored = context.stashContext()) {
                result = work.call();
            } catch (Exception e) {
                listener.onFailure(e);
                return;
            }
            listener.onResponse(new SnapshotResponse(result));
        });
    }

    private Executor pluginExecutor() {
        ThreadContext context = threadPool.getThreadContext();
        return task -> threadPool.generic().execute(() -> {
            try (ThreadContext.StoredContext ignored = context.stashContext()) {
                task.run();
            }
        });
    }

    @Override
    public void clusterChanged(ClusterChangedEvent event) {
        ClusterState state = event.state();
        if (state.blocks().hasGlobalBlock(GatewayService.STATE_NOT_RECOVERED_BLOCK)
            || !state.nodes().getLocalNode().canContainData()) {
            return;
        }
        if (event.metadataChanged() || event.routingTableChanged() || event.nodesChanged()) {
            nodeState.ensure(namedKeys(state), pluginExecutor());
        }
    }

    /** Every snapshot key the similarity settings of the cluster's indices name. */
    static Set<String> namedKeys(ClusterState state) {
        Set<String> keys = new TreeSet<>();
        for (IndexMetadata index : EsCompat.indices(state)) {
            Settings settings = index.getSettings();
            keys.addAll(SnapshotKeys.named(settings.keySet(), settings::get));
        }
        return keys;
    }

    // --- the public operations ---------------------------------------------------------------

    Map<String, Object> take(SnapshotRequest request) throws Exception {
        if (request.key() == null || request.index() == null) {
            throw new IllegalArgumentException("a take needs a key and an index");
        }
        ClusterState state = clusterService.state();
        Index index = EsCompat.singleIndex(state, request.index());
        Map<String, List<Integer>> byNode = shardCopies(state, index);
        SnapshotRepository.TakeRequest take = new SnapshotRepository.TakeRequest(
            request.key(), request.owner() == null ? request.key() : request.owner(), index.getName(), index.getUUID(),
            request.minDocFreq()
        );
        Map<String, Object> body;
        try {
            body = repository.take(take, () -> collect(index, request.fields(), byNode), () -> false);
        } catch (SnapshotStore.Conflict e) {
            throw new ElasticsearchStatusException(e.getMessage(), RestStatus.CONFLICT);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("key", request.key());
        out.putAll(body);
        out.put("nodes", fanOut(SnapshotNodeOp.keyed(SnapshotNodeOp.LOAD, request.key())));
        return out;
    }

    /** One started copy of every shard (the primary where it is started), by node. */
    static Map<String, List<Integer>> shardCopies(ClusterState state, Index index) {
        IndexRoutingTable table = state.routingTable().index(index);
        if (table == null) {
            throw new IllegalStateException("index [" + index.getName() + "] has no routing table (is it open?)");
        }
        Map<String, List<Integer>> byNode = new TreeMap<>();
        for (int i = 0; i < table.size(); i++) {
            IndexShardRoutingTable shard = table.shard(i);
            ShardRouting chosen = shard.primaryShard() != null && shard.primaryShard().started() ? shard.primaryShard() : null;
            if (chosen == null) {
                for (ShardRouting copy : shard.activeShards()) {
                    if (copy.started()) {
                        chosen = copy;
                        break;
                    }
                }
            }
            if (chosen == null) {
                throw new ElasticsearchStatusException("shard " + shard.shardId().id() + " of [" + index.getName()
                    + "] has no started copy: take the snapshot once the index is yellow or green", RestStatus.CONFLICT);
            }
            byNode.computeIfAbsent(chosen.currentNodeId(), n -> new ArrayList<>()).add(shard.shardId().id());
        }
        return byNode;
    }

    private List<ShardReport> collect(Index index, List<String> fields, Map<String, List<Integer>> byNode) {
        SnapshotNodeOp op = new SnapshotNodeOp(SnapshotNodeOp.COLLECT, null, index.getName(), index.getUUID(), fields, byNode);
        SnapshotNodesResponse response = client.execute(
            SnapshotActions.NODES, new SnapshotNodesRequest(op, byNode.keySet().toArray(new String[0]))
        ).actionGet();
        if (response.hasFailures()) {
            FailedNodeException first = response.failures().get(0);
            throw new IllegalStateException("reading the shards of [" + index.getName() + "] failed on node "
                + first.nodeId() + ": " + first.getDetailedMessage(), first);
        }
        List<ShardReport> reports = new ArrayList<>();
        for (SnapshotNodeResponse node : response.getNodes()) {
            reports.addAll(node.reports);
        }
        int expected = byNode.values().stream().mapToInt(List::size).sum();
        if (reports.size() != expected) {
            throw new IllegalStateException("read " + reports.size() + " of the " + expected + " shards of ["
                + index.getName() + "]: the shards moved meanwhile; take the snapshot again");
        }
        return reports;
    }

    /**
     * Runs a node op on every data node: per node its name and {@code state} (what it holds of the
     * key afterwards; without a key, by key), and the nodes that failed.
     */
    private Map<String, Object> fanOut(SnapshotNodeOp op) {
        SnapshotNodesResponse response = client.execute(SnapshotActions.NODES, new SnapshotNodesRequest(op, "data:true"))
            .actionGet();
        Map<String, Object> held = new TreeMap<>();
        for (SnapshotNodeResponse node : response.getNodes()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", node.getNode().getName());
            entry.put("state", node.info);
            held.put(node.getNode().getId(), entry);
        }
        Map<String, Object> failed = new TreeMap<>();
        for (FailedNodeException f : response.failures()) {
            failed.put(f.nodeId(), f.getDetailedMessage());
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("total", held.size() + failed.size());
        out.put("held", held);
        out.put("failed", failed);
        return out;
    }

    Map<String, Object> get(SnapshotRequest request) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (request.key() == null) {
            Map<String, Object> all = new TreeMap<>();
            for (String key : repository.keys()) {
                all.put(key, repository.meta(key));
            }
            out.put("snapshots", all);
            out.put("nodes", fanOut(SnapshotNodeOp.keyed(SnapshotNodeOp.DESCRIBE, null)));
            return out;
        }
        Map<String, Object> meta = repository.meta(request.key());
        if (meta == null) {
            throw new ElasticsearchStatusException("no statistics snapshot [" + request.key() + "]", RestStatus.NOT_FOUND);
        }
        out.put("key", request.key());
        out.putAll(meta);
        out.put("nodes", fanOut(SnapshotNodeOp.keyed(SnapshotNodeOp.DESCRIBE, request.key())));
        return out;
    }

    Map<String, Object> load(SnapshotRequest request) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("key", request.key());
        out.put("nodes", fanOut(SnapshotNodeOp.keyed(SnapshotNodeOp.LOAD, request.key())));
        return out;
    }

    Map<String, Object> delete(SnapshotRequest request) {
        Map<String, Object> had = repository.delete(request.key());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("key", request.key());
        out.put("deleted", had != null);
        if (had != null) {
            out.put("generation", had.get("generation"));
        }
        out.put("nodes", fanOut(SnapshotNodeOp.keyed(SnapshotNodeOp.EVICT, request.key())));
        return out;
    }

    /** What a node op does on this node (called by the nodes action). */
    Map<String, Object> onNode(SnapshotNodeOp op) {
        switch (op.op) {
            case SnapshotNodeOp.LOAD:
                return nodeState.load(op.key);
            case SnapshotNodeOp.EVICT:
                nodeState.evict(op.key);
                return nodeState.describe(op.key);
            case SnapshotNodeOp.DESCRIBE:
                return op.key == null ? new HashMap<>(nodeState.describeAll()) : nodeState.describe(op.key);
            default:
                throw new IllegalArgumentException("unknown snapshot node op [" + op.op + "]");
        }
    }
}
