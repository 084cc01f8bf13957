package io.github.qidf.similarity.opensearch;

import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchType;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.pipeline.AbstractProcessor;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.search.pipeline.SearchRequestProcessor;
import org.opensearch.search.sort.FieldSortBuilder;
import org.opensearch.search.sort.SortBuilder;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A search request processor that makes a scoring search of a multi-shard index use
 * index-wide term statistics ({@code dfs_query_then_fetch}), so that an application that
 * sends a plain {@code _search} gets the ranking of one shard.
 *
 * <p>Each shard scores with its own df and N under the default {@code query_then_fetch}; the
 * q-log IDF amplifies exactly those differences (measured in the project's
 * {@code benchmarks/sharding/}). The processor changes the search type and nothing else, and
 * only where the hits are ranked by score: a request without a query (every hit scores 1),
 * with {@code size: 0} ({@code _count}, aggregations only), sorted by fields without
 * {@code track_scores}, or suggest only is passed on as it came, so it costs no extra round
 * trip. A request that already asks for dfs is unchanged. A search on one shard is run as
 * {@code query_then_fetch} by the engine whatever the type (one shard's statistics are the
 * index's). Scroll continuations never reach a search pipeline (they are another action).
 */
public final class IndexStatisticsProcessor extends AbstractProcessor implements SearchRequestProcessor {

    /** The processor type, as a search pipeline names it. */
    public static final String TYPE = "qidf_index_statistics";

    IndexStatisticsProcessor(String tag, String description, boolean ignoreFailure) {
        super(tag, description, ignoreFailure);
    }

    @Override
    public String getType() {
        return TYPE;
    }

    @Override
    public SearchRequest processRequest(SearchRequest request) {
        if (request.searchType() == SearchType.QUERY_THEN_FETCH && ranksByScore(request)) {
            request.searchType(SearchType.DFS_QUERY_THEN_FETCH);
        }
        return request;
    }

    /** Whether the request's hits are scored, so that the statistics change what it returns. */
    static boolean ranksByScore(SearchRequest request) {
        SearchSourceBuilder source = request.source();
        if (source == null || source.query() == null || source.size() == 0 || request.isSuggestOnly()) {
            return false;
        }
        return source.trackScores() || !sortedByFieldsOnly(source.sorts());
    }

    private static boolean sortedByFieldsOnly(List<SortBuilder<?>> sorts) {
        if (sorts == null || sorts.isEmpty()) {
            return false;
        }
        for (SortBuilder<?> sort : sorts) {
            if (!(sort instanceof FieldSortBuilder)) {
                return false;
            }
        }
        return true;
    }

    /** Builds the processor from its pipeline configuration, which takes no options. */
    public static final class Factory implements Processor.Factory<SearchRequestProcessor> {

        @Override
        public IndexStatisticsProcessor create(
            Map<String, Processor.Factory<SearchRequestProcessor>> processorFactories,
            String tag,
            String description,
            boolean ignoreFailure,
            Map<String, Object> config,
            Processor.PipelineContext pipelineContext
        ) {
            if (config != null && !config.isEmpty()) {
                String keys = String.join(", ", new TreeSet<>(config.keySet()));
                throw ConfigurationUtils.newConfigurationException(
                    TYPE, tag, keys,
                    "unknown option: " + TYPE + " takes none (it switches scoring searches to dfs_query_then_fetch)"
                );
            }
            return new IndexStatisticsProcessor(tag, description, ignoreFailure);
        }
    }
}
