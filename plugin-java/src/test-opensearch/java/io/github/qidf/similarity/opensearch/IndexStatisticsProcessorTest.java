package io.github.qidf.similarity.opensearch;

import org.opensearch.OpenSearchException;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchType;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.search.aggregations.AggregationBuilders;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.sort.SortBuilders;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.search.suggest.SuggestBuilder;
import org.opensearch.search.suggest.SuggestBuilders;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The processor on the request object: which requests it switches to dfs, and that it changes nothing else. */
class IndexStatisticsProcessorTest {

    private static IndexStatisticsProcessor processor() {
        return new IndexStatisticsProcessor.Factory().create(Map.of(), "qidf", null, false, new HashMap<>(), null);
    }

    private static SearchSourceBuilder matchQuery() {
        return new SearchSourceBuilder().query(QueryBuilders.matchQuery("code", "func header fs"));
    }

    private static SearchType after(SearchRequest request) {
        return processor().processRequest(request).searchType();
    }

    @Test
    void aScoringSearchGetsIndexWideStatistics() {
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH, after(new SearchRequest("code").source(matchQuery())));
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH, after(new SearchRequest("code").source(matchQuery().size(25).from(10))));
    }

    @Test
    void onlyTheSearchTypeChanges() {
        SearchSourceBuilder source = matchQuery().size(7).aggregation(AggregationBuilders.terms("t").field("lang"));
        SearchRequest request = new SearchRequest("code").source(source).routing("r").preference("_local");
        String before = request.source().toString();
        SearchRequest out = processor().processRequest(request);
        assertSame(request, out);
        assertEquals(before, out.source().toString());
        assertEquals("r", out.routing());
        assertEquals("_local", out.preference());
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH, out.searchType());
    }

    @Test
    void requestsThatDoNotRankByScoreAreLeftAlone() {
        // size 0: _count and aggregation-only searches
        assertEquals(SearchType.QUERY_THEN_FETCH, after(new SearchRequest("code").source(matchQuery().size(0))));
        // no query at all (every hit scores 1), or no body
        assertEquals(SearchType.QUERY_THEN_FETCH, after(new SearchRequest("code").source(new SearchSourceBuilder().size(10))));
        assertEquals(SearchType.QUERY_THEN_FETCH, after(new SearchRequest("code")));
        // sorted by fields, scores not tracked
        assertEquals(SearchType.QUERY_THEN_FETCH,
            after(new SearchRequest("code").source(matchQuery().sort("_doc").sort("id", SortOrder.DESC))));
        // suggest only
        SearchSourceBuilder suggest = new SearchSourceBuilder().size(0)
            .suggest(new SuggestBuilder().addSuggestion("s", SuggestBuilders.termSuggestion("code").text("hedaer")));
        assertEquals(SearchType.QUERY_THEN_FETCH, after(new SearchRequest("code").source(suggest)));
    }

    @Test
    void sortsThatUseTheScoreStillGetDfs() {
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH,
            after(new SearchRequest("code").source(matchQuery().sort(SortBuilders.scoreSort()).sort("id"))));
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH,
            after(new SearchRequest("code").source(matchQuery().sort("id").trackScores(true))));
    }

    @Test
    void theFirstPageOfAScrollIsScoredLikeAnySearch() {
        SearchRequest request = new SearchRequest("code").source(matchQuery()).scroll(TimeValue.timeValueMinutes(1));
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH, after(request));
    }

    @Test
    void anExplicitDfsStaysDfs() {
        SearchRequest request = new SearchRequest("code").source(matchQuery()).searchType(SearchType.DFS_QUERY_THEN_FETCH);
        assertEquals(SearchType.DFS_QUERY_THEN_FETCH, after(request));
    }

    @Test
    void theFactoryRefusesOptions() {
        Map<String, Object> config = new HashMap<>(Map.of("min_shards", 2, "mode", "x"));
        OpenSearchException e = assertThrows(OpenSearchException.class,
            () -> new IndexStatisticsProcessor.Factory().create(Map.of(), "t", null, false, config, null));
        assertEquals("[min_shards, mode] unknown option: qidf_index_statistics takes none (it switches scoring searches to dfs_query_then_fetch)", e.getMessage());
    }

    @Test
    void theFactoryKeepsTagDescriptionAndIgnoreFailure() {
        IndexStatisticsProcessor p = new IndexStatisticsProcessor.Factory()
            .create(Map.of(), "tag1", "why", true, new HashMap<>(), null);
        assertEquals(IndexStatisticsProcessor.TYPE, p.getType());
        assertEquals("tag1", p.getTag());
        assertEquals("why", p.getDescription());
        assertTrue(p.isIgnoreFailure());
    }
}
