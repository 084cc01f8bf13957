package io.github.qidf.similarity.opensearch.snapshot;

import io.github.qidf.similarity.snapshot.ShardReport;

import org.opensearch.action.FailedNodeException;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.nodes.TransportNodesAction;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.index.Index;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * The plugin's fan-out to nodes: each node reads the term statistics of its shards of an index
 * (from the searcher its searches use: df counts deleted documents not yet merged away, exactly
 * as the dfs phase reads them), or loads, drops or describes its snapshots. Node work runs on
 * the generic thread pool.
 */
public final class TransportSnapshotNodesAction extends TransportNodesAction<
    SnapshotNodesRequest, SnapshotNodesResponse, SnapshotNodeRequest, SnapshotNodeResponse> {

    private final IndicesService indicesService;
    private final SnapshotService service;
    private final ExecutorService pool;

    @Inject
    public TransportSnapshotNodesAction(ThreadPool threadPool, ClusterService clusterService, TransportService transportService,
                                        ActionFilters actionFilters, IndicesService indicesService, SnapshotService service) {
        super(SnapshotActions.NODES_NAME, threadPool, clusterService, transportService, actionFilters,
            SnapshotNodesRequest::new, SnapshotNodeRequest::new, ThreadPool.Names.GENERIC, SnapshotNodeResponse.class);
        this.indicesService = indicesService;
        this.service = service;
        this.pool = threadPool.generic();
    }

    @Override
    protected SnapshotNodesResponse newResponse(SnapshotNodesRequest request, List<SnapshotNodeResponse> responses,
                                                List<FailedNodeException> failures) {
        return new SnapshotNodesResponse(clusterService.getClusterName(), responses, failures);
    }

    @Override
    protected SnapshotNodeRequest newNodeRequest(SnapshotNodesRequest request) {
        return new SnapshotNodeRequest(request.op);
    }

    @Override
    protected SnapshotNodeResponse newNodeResponse(StreamInput in) throws IOException {
        return new SnapshotNodeResponse(in);
    }

    @Override
    protected SnapshotNodeResponse nodeOperation(SnapshotNodeRequest request) {
        SnapshotNodeOp op = request.op();
        if (!SnapshotNodeOp.COLLECT.equals(op.op)) {
            return new SnapshotNodeResponse(clusterService.localNode(), List.of(), service.onNode(op));
        }
        List<Integer> shards = op.shardsByNode.getOrDefault(clusterService.localNode().getId(), List.of());
        IndexService index = indicesService.indexServiceSafe(new Index(op.index, op.indexUuid));
        // One generic thread per shard: the reads are CPU-bound and independent.
        List<Future<ShardReport>> reading = new ArrayList<>();
        for (int id : shards) {
            reading.add(pool.submit(() -> {
                IndexShard shard = index.getShard(id);
                try (Engine.Searcher searcher = shard.acquireSearcher("qidf_stats_snapshot")) {
                    return ShardReport.read(id, searcher.getIndexReader(), op.fields, shard.seqNoStats().getMaxSeqNo());
                }
            }));
        }
        List<ShardReport> reports = new ArrayList<>();
        for (Future<ShardReport> f : reading) {
            try {
                reports.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading shards", e);
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof IOException) {
                    throw new UncheckedIOException((IOException) cause);
                }
                throw cause instanceof RuntimeException ? (RuntimeException) cause : new IllegalStateException(cause);
            }
        }
        return new SnapshotNodeResponse(clusterService.localNode(), reports, Map.of());
    }
}
