package io.github.qidf.similarity.opensearch;

import io.github.qidf.similarity.QLogSimilaritySettings;
import io.github.qidf.similarity.opensearch.snapshot.NodeRequests;
import io.github.qidf.similarity.opensearch.snapshot.RestSnapshotAction;
import io.github.qidf.similarity.opensearch.snapshot.SnapshotActions;
import io.github.qidf.similarity.opensearch.snapshot.SnapshotService;
import io.github.qidf.similarity.opensearch.snapshot.TransportSnapshotActions;
import io.github.qidf.similarity.opensearch.snapshot.TransportSnapshotNodesAction;
import io.github.qidf.similarity.snapshot.SnapshotCache;

import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.client.Client;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.node.DiscoveryNodes;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.ClusterSettings;
import org.opensearch.common.settings.IndexScopedSettings;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.settings.SettingsFilter;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.NamedWriteableRegistry;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.env.Environment;
import org.opensearch.env.NodeEnvironment;
import org.opensearch.index.IndexModule;
import org.opensearch.plugins.ActionPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.SearchPipelinePlugin;
import org.opensearch.repositories.RepositoriesService;
import org.opensearch.rest.RestController;
import org.opensearch.rest.RestHandler;
import org.opensearch.script.ScriptService;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.search.pipeline.SearchRequestProcessor;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.watcher.ResourceWatcherService;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Registers the {@code qlog_bm25} similarity type, the {@code qidf_index_statistics} search
 * request processor and the statistics-snapshot actions with OpenSearch 2.x. Wiring only.
 */
public class QLogSimilarityPlugin extends Plugin implements SearchPipelinePlugin, ActionPlugin {

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
    public Map<String, Processor.Factory<SearchRequestProcessor>> getRequestProcessors(Parameters parameters) {
        return Map.of(IndexStatisticsProcessor.TYPE, new IndexStatisticsProcessor.Factory());
    }

    @Override
    public Collection<Object> createComponents(Client client, ClusterService clusterService, ThreadPool threadPool,
                                               ResourceWatcherService resourceWatcherService, ScriptService scriptService,
                                               NamedXContentRegistry xContentRegistry, Environment environment,
                                               NodeEnvironment nodeEnvironment, NamedWriteableRegistry namedWriteableRegistry,
                                               IndexNameExpressionResolver indexNameExpressionResolver,
                                               Supplier<RepositoriesService> repositoriesServiceSupplier) {
        snapshotService.start(new NodeRequests() {
            @Override
            public <Req extends ActionRequest, Resp extends ActionResponse> Resp execute(ActionType<Resp> type, Req request) {
                return client.execute(type, request).actionGet();
            }
        }, clusterService, threadPool);
        return List.of(snapshotService);
    }

    @Override
    public List<ActionHandler<? extends ActionRequest, ? extends ActionResponse>> getActions() {
        return List.of(
            new ActionHandler<>(SnapshotActions.TAKE, TransportSnapshotActions.Take.class),
            new ActionHandler<>(SnapshotActions.GET, TransportSnapshotActions.Get.class),
            new ActionHandler<>(SnapshotActions.LOAD, TransportSnapshotActions.Load.class),
            new ActionHandler<>(SnapshotActions.DELETE, TransportSnapshotActions.Delete.class),
            new ActionHandler<>(SnapshotActions.NODES, TransportSnapshotNodesAction.class)
        );
    }

    @Override
    public List<RestHandler> getRestHandlers(Settings settings, RestController restController, ClusterSettings clusterSettings,
                                             IndexScopedSettings indexScopedSettings, SettingsFilter settingsFilter,
                                             IndexNameExpressionResolver indexNameExpressionResolver,
                                             Supplier<DiscoveryNodes> nodesInCluster) {
        return List.of(new RestSnapshotAction());
    }
}
