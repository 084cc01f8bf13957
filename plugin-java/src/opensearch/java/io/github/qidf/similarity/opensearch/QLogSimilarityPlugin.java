package io.github.qidf.similarity.opensearch;

import io.github.qidf.similarity.QLogSimilaritySettings;

import org.opensearch.index.IndexModule;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.SearchPipelinePlugin;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.search.pipeline.SearchRequestProcessor;

import java.util.Map;

/**
 * Registers the {@code qlog_bm25} similarity type and the {@code qidf_index_statistics} search
 * request processor with OpenSearch. Wiring only.
 */
public class QLogSimilarityPlugin extends Plugin implements SearchPipelinePlugin {

    @Override
    public void onIndexModule(IndexModule indexModule) {
        indexModule.addSimilarity(
            QLogSimilaritySettings.TYPE,
            (settings, indexCreatedVersion, scriptService) -> QLogSimilarityProvider.create(settings)
        );
    }

    @Override
    public Map<String, Processor.Factory<SearchRequestProcessor>> getRequestProcessors(Parameters parameters) {
        return Map.of(IndexStatisticsProcessor.TYPE, new IndexStatisticsProcessor.Factory());
    }
}
