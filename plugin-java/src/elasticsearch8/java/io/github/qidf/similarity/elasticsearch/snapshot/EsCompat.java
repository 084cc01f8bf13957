package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.cluster.ClusterState;
import org.elasticsearch.cluster.metadata.IndexAbstraction;
import org.elasticsearch.cluster.metadata.IndexMetadata;
import org.elasticsearch.index.Index;

import java.util.Collection;

/** Cluster metadata as Elasticsearch 8.x holds it (one project). */
final class EsCompat {

    private EsCompat() {}

    static Collection<IndexMetadata> indices(ClusterState state) {
        return state.metadata().indices().values();
    }

    static boolean hasIndex(ClusterState state, String name) {
        return state.metadata().hasIndex(name);
    }

    /** The one open index {@code name} (an index, or an alias of one index) resolves to. */
    static Index singleIndex(ClusterState state, String name) {
        return single(state.metadata().getIndicesLookup().get(name), name, state);
    }

    static Index single(IndexAbstraction found, String name, ClusterState state) {
        if (found == null) {
            throw new org.elasticsearch.index.IndexNotFoundException(name);
        }
        if (found.getIndices().size() != 1) {
            throw new IllegalArgumentException("[" + name + "] must name exactly one index, it names " + found.getIndices().size());
        }
        Index index = found.getIndices().get(0);
        if (state.routingTable().index(index) == null) {
            throw new IllegalArgumentException("index [" + index.getName() + "] is closed: open it first");
        }
        return index;
    }
}
