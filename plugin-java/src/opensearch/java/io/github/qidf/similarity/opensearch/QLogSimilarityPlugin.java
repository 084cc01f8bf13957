package io.github.qidf.similarity.opensearch;

import io.github.qidf.similarity.QLogSimilaritySettings;

import org.opensearch.index.IndexModule;
import org.opensearch.plugins.Plugin;

/** Registers the {@code qlog_bm25} similarity type with OpenSearch. Wiring only. */
public class QLogSimilarityPlugin extends Plugin {

    @Override
    public void onIndexModule(IndexModule indexModule) {
        indexModule.addSimilarity(
            QLogSimilaritySettings.TYPE,
            (settings, indexCreatedVersion, scriptService) -> QLogSimilarityProvider.create(settings)
        );
    }
}
