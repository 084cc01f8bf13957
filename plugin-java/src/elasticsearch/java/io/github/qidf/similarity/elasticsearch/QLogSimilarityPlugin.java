package io.github.qidf.similarity.elasticsearch;

import io.github.qidf.similarity.QLogSimilaritySettings;

import org.elasticsearch.index.IndexModule;
import org.elasticsearch.plugins.Plugin;

/** Registers the {@code qlog_bm25} similarity type with Elasticsearch. Wiring only. */
public class QLogSimilarityPlugin extends Plugin {

    @Override
    public void onIndexModule(IndexModule indexModule) {
        indexModule.addSimilarity(
            QLogSimilaritySettings.TYPE,
            (settings, indexCreatedVersion, scriptService) -> QLogSimilarityProvider.create(settings)
        );
    }
}
