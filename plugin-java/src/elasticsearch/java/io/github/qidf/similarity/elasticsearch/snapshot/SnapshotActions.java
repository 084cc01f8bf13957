package io.github.qidf.similarity.elasticsearch.snapshot;

import org.elasticsearch.action.ActionType;

/**
 * The plugin's statistics-snapshot actions. The public ones are what a role grants (see the
 * project's privileges page): taking one is an index action on the index it reads; reading,
 * loading and deleting are cluster actions. The nodes action is the plugin's own fan-out, run
 * under the plugin's identity.
 */
public final class SnapshotActions {

    private SnapshotActions() {}

    public static final String TAKE_NAME = "indices:admin/qidf/stats_snapshot/take";
    public static final String GET_NAME = "cluster:monitor/qidf/stats_snapshot/get";
    public static final String LOAD_NAME = "cluster:admin/qidf/stats_snapshot/load";
    public static final String DELETE_NAME = "cluster:admin/qidf/stats_snapshot/delete";
    public static final String NODES_NAME = "cluster:admin/qidf/stats_snapshot/nodes";

    public static final ActionType<SnapshotResponse> TAKE = new ActionType<>(TAKE_NAME);
    public static final ActionType<SnapshotResponse> GET = new ActionType<>(GET_NAME);
    public static final ActionType<SnapshotResponse> LOAD = new ActionType<>(LOAD_NAME);
    public static final ActionType<SnapshotResponse> DELETE = new ActionType<>(DELETE_NAME);
    public static final ActionType<SnapshotNodesResponse> NODES = new ActionType<>(NODES_NAME);
}
