package io.github.qidf.similarity.elasticsearch;

import io.github.qidf.similarity.QLogSimilaritySettings;
import io.github.qidf.similarity.elasticsearch.snapshot.RestSnapshotAction;
import io.github.qidf.similarity.elasticsearch.snapshot.SnapshotActions;
import io.github.qidf.similarity.elasticsearch.snapshot.SnapshotService;
import io.github.qidf.similarity.elasticsearch.snapshot.TransportSnapshotActions;
import io.github.qidf.similarity.elasticsearch.snapshot.TransportSnapshotNodesAction;
import io.github.qidf.similarity.snapshot.SnapshotCache;

import org.elasticsearch.cluster.node.DiscoveryNodes;
import org.elasticsearch.features.NodeFeature;
import org.elasticsearch.index.IndexModule;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.rest.RestHandler;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Registers the {@code qlog_bm25} similarity type and the statistics-snapshot actions with
 * Elasticsearch 9.x. Wiring only.
 */
public class QLogSimilarityPlugin extends Plugin implements ActionPlugin {

    private final SnapshotCache snapshots = new SnapshotCache();
    private final SnapshotService snapshotService = new SnapshotService(snapshots);

    @Override
    public void onIndexModule(IndexModule indexModule) {
        indexModule.addSimilarity(
            QLogSimilaritySettings.TYPE,
            (settings, indexCreatedVersion, scriptService) -> QLogSimilarityProvider.create(settings, snapshots)
        );
    }

    @Override
    public Collection<?> createComponents(PluginServices services) {
        snapshotService.start(services.client(), services.clusterService(), services.threadPool());
        return List.of(snapshotService);
    }

    @Override
    public Collection<ActionHandler> getActions() {
        return List.of(
            new ActionHandler(SnapshotActions.TAKE, TransportSnapshotActions.Take.class),
            new ActionHandler(SnapshotActions.GET, TransportSnapshotActions.Get.class),
            new ActionHandler(SnapshotActions.LOAD, TransportSnapshotActions.Load.class),
            new ActionHandler(SnapshotActions.DELETE, TransportSnapshotActions.Delete.class),
            new ActionHandler(SnapshotActions.NODES, TransportSnapshotNodesAction.class)
        );
    }

    @Override
    public Collection<RestHandler> getRestHandlers(RestHandlersServices services,
                                                   Supplier<DiscoveryNodes> nodesInCluster,
                                                   Predicate<NodeFeature> clusterSupportsFeature) {
        return List.of(new RestSnapshotAction());
    }
}
