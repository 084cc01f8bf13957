"""The privileges qidf needs, as data: the roles ``docs/how-to/privileges.md`` publishes, the test
fixture grants, and error messages quote when a privilege is missing.

The OpenSearch action names were found against a real OpenSearch 2.19.1 with the security
plugin: a user with an empty role ran every request qidf makes, each refusal named the
missing action, and then each action was removed in turn to prove it necessary. Some names
that start with ``indices:`` are cluster-level: the request names no index (scroll) or fans
out into per-index sub-requests (``_msearch``, ``_mget``, ``_mtermvectors``, ``_bulk``),
whose ``[shard]``/``[s]`` parts are index-level. Elasticsearch roles use its named
privileges (``manage``, ``read``...), from its documentation (Elasticsearch's security is
not on Maven Central, so not run here).
"""

from __future__ import annotations

from typing import Any

STATE_INDEX = "qidf-state"  # leases and journal (qidf_ctl/cluster/names.py on issue 10)
SCRATCH_PATTERN = "qidf-validate-*"  # the similarity is tried on one of these first
OWN_PATTERNS = (STATE_INDEX, SCRATCH_PATTERN)

# --- OpenSearch security plugin ----------------------------------------------------------

OPERATOR_CLUSTER = (
    "cluster:monitor/main",            # GET /  (engine and version)
    "cluster:monitor/health",          # GET _cluster/health/<index>  (after reopening)
    "cluster:monitor/state",           # GET _cat/indices, GET _cluster/settings
    "indices:data/read/scroll",        # POST _search/scroll  (stats)
    "indices:data/read/scroll/clear",  # DELETE _search/scroll
    "indices:data/read/msearch",       # POST _msearch  (eval)
    "indices:data/read/mget",          # POST <index>/_mget  (eval)
    "indices:data/read/mtv",           # POST <index>/_mtermvectors  (stats)
    "indices:data/write/bulk",         # a single-document write runs as a one-item bulk
)
# Optional: lets ``--mode auto`` see whether every data node has the plugin; without it
# qidf warns and uses Painless.
AUTO_MODE_CLUSTER = ("cluster:monitor/nodes/info",)  # GET _nodes/plugins

OPERATOR_INDEX = (
    "indices:monitor/settings/get",    # GET <index>/_settings, _cat/indices
    "indices:admin/mappings/get",      # GET <index>/_mapping
    "indices:admin/mapping/put",       # PUT <index>/_mapping {_meta}  (the record)
    "indices:admin/close",             # POST <index>/_close
    "indices:admin/close[s]",          # its per-shard step: without it _close answers 200
                                       # with acknowledged=false and the index stays open
    "indices:admin/open",              # POST <index>/_open
    "indices:admin/settings/update",   # PUT <index>/_settings
    "indices:data/read/search",        # _search, _count, _msearch items
    "indices:data/read/tv",            # POST <index>/_termvectors
    "indices:data/read/mtv[shard]",    # _mtermvectors items (refused inside a 200)
    "indices:data/read/mget[shard]",   # _mget items (refused inside a 200)
    "indices:monitor/stats",           # GET <index>/_stats, _cat/indices
    "indices:admin/analyze",           # POST <index>/_analyze
    "indices:admin/aliases/get",       # GET <index>/_alias  (which names point at it)
    "indices:admin/resolve/index",     # GET _resolve/index/<name>  (alias or index?)
)
OWN_INDEX = (
    "indices:admin/create",            # PUT qidf-validate-<run>, PUT qidf-state
    "indices:admin/delete",            # DELETE qidf-validate-<run>
    "indices:admin/mapping/put",
    "indices:data/write/index",        # a scratch document; lease and journal documents
    "indices:data/write/bulk[s]",
    "indices:data/write/delete",       # a lease given back
    "indices:data/read/get",           # GET qidf-state/_doc/<id>
    "indices:data/read/search",
    "indices:monitor/settings/get",    # does qidf-state exist?
)
# --strategy clone (zero-downtime): clone, move aliases, drop the old index.
CLONE_INDEX = (
    "indices:admin/resize",            # POST <index>/_clone/<clone>
    "indices:admin/aliases",           # POST _aliases (add + remove_index, one call)
    "indices:admin/delete",            # remove_index of the old index
    "indices:admin/block/add",         # PUT <index>/_block/write
    "indices:admin/block/add[s]",      # its per-shard step (refused inside a 200 otherwise)
    "indices:admin/refresh",           # before counting the source's documents
    "indices:admin/refresh[s]",        # its per-shard step (a 403 listing shard failures)
)
# ``apply --stats index`` (and ``auto`` choosing it; revert undoing it): qidf's default search
# pipeline for the index. Action names from the OpenSearch 2.19.6 server jar
# (Put/Get/DeleteSearchPipelineAction.NAME; _nodes/search_pipelines is a nodes info call);
# the setting itself is ``indices:admin/settings/update``, already in OPERATOR_INDEX.
STATS_CLUSTER = (
    "cluster:admin/search/pipeline/put",     # PUT _search/pipeline/qidf-stats-<index>
    "cluster:admin/search/pipeline/get",     # GET _search/pipeline/<id> (qidf's, the index's)
    "cluster:admin/search/pipeline/delete",  # DELETE _search/pipeline/qidf-stats-<index>
    "cluster:monitor/nodes/info",            # GET _nodes/search_pipelines (auto, index)
)
# ``apply --stats snapshot`` (and ``auto`` choosing it), ``qidf snapshot refresh``, revert and
# show: the plugin's statistics-snapshot actions (io.github.qidf.similarity.*.SnapshotActions).
# Taking one is an action on the index it reads; the plugin writes its own store index
# (qidf-snapshots) under its own identity, so the user needs no right on it.
SNAPSHOT_CLUSTER = (
    "cluster:monitor/qidf/stats_snapshot/get",    # GET _plugins/qidf/stats_snapshot[/<key>]
    "cluster:admin/qidf/stats_snapshot/load",     # POST .../<key>/_load
    "cluster:admin/qidf/stats_snapshot/delete",   # DELETE .../<key> (revert, --stats shard)
)
SNAPSHOT_INDEX = ("indices:admin/qidf/stats_snapshot/take",)  # PUT .../<key> {"index": ...}
SEARCH_CLUSTER = ("cluster:monitor/main", "indices:data/read/scroll",
                  "indices:data/read/scroll/clear", "indices:data/read/msearch",
                  "indices:data/read/mget")
SEARCH_INDEX = ("indices:data/read/search", "indices:data/read/get",
                "indices:data/read/mget[shard]")
# ``qidf search`` (query-time q-log, docs/how-to/query-time.md): read actions only, no settings.
QUERY_TIME_CLUSTER = ("cluster:monitor/main",)  # GET /  (engine and version)
QUERY_TIME_INDEX = (
    "indices:data/read/search",        # the query; the shard count; index-wide df (filters)
    "indices:data/read/tv",            # _termvectors on the query text: tokens and shard df
    "indices:data/read/field_caps",    # the text field, where _mapping is refused
    "indices:data/read/field_caps[index]",  # its per-index step: without it _field_caps
                                            # answers 200 with no index and no field
)
# ``qidf mcp`` and the LangChain/LlamaIndex retrievers (docs/how-to/agents.md): query time's read
# actions, and the index's settings and mapping, which say whether q-log is installed and why
# (``_meta.qidf``). Without the last two the server assumes built-in BM25 and says so.
AGENT_CLUSTER = QUERY_TIME_CLUSTER
AGENT_INDEX = (*QUERY_TIME_INDEX,
               "indices:monitor/settings/get",  # GET <index>/_settings: the similarity
               "indices:admin/mappings/get")    # GET <index>/_mapping: the field, _meta.qidf

# An action and the sub-action the engine checks with it: a hint names both.
COMPANIONS = {
    "indices:admin/close": "indices:admin/close[s]",
    "indices:data/read/mtv": "indices:data/read/mtv[shard]",
    "indices:data/read/mget": "indices:data/read/mget[shard]",
    "indices:data/write/bulk": "indices:data/write/bulk[s]",
    "indices:admin/block/add": "indices:admin/block/add[s]",
    "indices:admin/refresh": "indices:admin/refresh[s]",
    "indices:data/read/field_caps": "indices:data/read/field_caps[index]",
}
CLUSTER_LEVEL = frozenset(OPERATOR_CLUSTER + AUTO_MODE_CLUSTER + STATS_CLUSTER + SEARCH_CLUSTER
                          + QUERY_TIME_CLUSTER + SNAPSHOT_CLUSTER)


def is_cluster_action(action: str) -> bool:
    """Whether the security plugin checks ``action`` against cluster permissions."""
    return action in CLUSTER_LEVEL or action.startswith("cluster:")


def _index_permission(patterns: list[str], actions: tuple[str, ...]) -> dict[str, Any]:
    return {"index_patterns": list(patterns), "allowed_actions": list(actions)}


def opensearch_roles(patterns: list[str]) -> dict[str, dict[str, Any]]:
    """The roles to create with ``PUT _plugins/_security/api/roles/<name>``, for the indices
    matching ``patterns``."""
    return {
        "qidf_operator": {
            "description": "qidf apply/revert/show/stats/predict/eval (close strategy)",
            "cluster_permissions": list(OPERATOR_CLUSTER),
            "index_permissions": [_index_permission(patterns, OPERATOR_INDEX),
                                  _index_permission(list(OWN_PATTERNS), OWN_INDEX)]},
        "qidf_auto_mode": {
            "description": "lets --mode auto look for the qidf plugin on the data nodes",
            "cluster_permissions": list(AUTO_MODE_CLUSTER)},
        "qidf_clone": {
            "description": "qidf apply/revert --strategy clone (add to qidf_operator)",
            "index_permissions": [_index_permission(patterns, CLONE_INDEX)]},
        "qidf_stats": {
            "description": "qidf apply --stats index|snapshot|auto, snapshot refresh and "
                           "revert: the index's default search pipeline and statistics "
                           "snapshot (add to qidf_operator)",
            "cluster_permissions": list(STATS_CLUSTER + SNAPSHOT_CLUSTER),
            "index_permissions": [_index_permission(patterns, SNAPSHOT_INDEX)]},
        "qidf_search": {
            "description": "searching with a q-log index: read only",
            "cluster_permissions": list(SEARCH_CLUSTER),
            "index_permissions": [_index_permission(patterns, SEARCH_INDEX)]},
        "qidf_query_time": {
            "description": "qidf search: q-log at query time, read only",
            "cluster_permissions": list(QUERY_TIME_CLUSTER),
            "index_permissions": [_index_permission(patterns, QUERY_TIME_INDEX)]},
        "qidf_agent": {
            "description": "qidf mcp and the retrievers: read only, and how each index is ranked",
            "cluster_permissions": list(AGENT_CLUSTER),
            "index_permissions": [_index_permission(patterns, AGENT_INDEX)]},
    }


# --- Elasticsearch (named privileges) -----------------------------------------------------

def elasticsearch_roles(patterns: list[str]) -> dict[str, dict[str, Any]]:
    """Roles for ``PUT _security/role/<name>``. ``manage`` is the narrowest named privilege
    that holds close, open, settings, mapping and ``_analyze`` on Elasticsearch."""
    return {
        "qidf_operator": {
            "cluster": ["monitor"],
            "indices": [
                {"names": list(patterns),
                 "privileges": ["view_index_metadata", "monitor", "read", "manage"]},
                {"names": list(OWN_PATTERNS),
                 "privileges": ["create_index", "delete_index", "write", "read",
                                "view_index_metadata", "manage"]}]},
        "qidf_search": {
            "indices": [{"names": list(patterns), "privileges": ["read"]}]},
    }
