"""Which statistics an index's scoring searches use, and the change ``apply --stats`` makes.

``index``: searches that name no pipeline run through qidf's default pipeline, which sends
the scoring ones as ``dfs_query_then_fetch`` (index-wide df and N, the one-shard ranking);
``snapshot``: the plugin's similarity scores plain searches with a statistics snapshot of
the index (the same index-wide numbers, taken once, with no dfs round trip: ``snapshot``);
``shard``: the engine's default (each shard's own statistics); ``auto``: ``snapshot`` when
the index has several shards, the similarity is the plugin's and every data node holds
snapshots, else ``index`` when every node has the processor, else ``shard``. ``qidf search
--stats`` uses the words ``index`` and ``shard`` the same way.

What qidf installs is recorded in the mapping's ``_meta.qidf.stats``: the pipeline, the
setting's value before (restored exactly by ``--stats shard`` and ``revert``) and the user
pipeline whose processors qidf's runs first.

The pipeline belongs to the index it was made for (``ownership``): an index that names
another index's pipeline with that index's record (a ``_clone`` or a restore copies both) is
*inherited*: ``apply`` gives it its own pipeline, ``revert`` points it back at what the record
says it had, and neither touches the other index's pipeline; a revert that would delete a
pipeline another index still names keeps it and says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, describe_index
from qidf_ctl.cluster.names import STATS_PIPELINE_PREFIX, stats_pipeline_id
from qidf_ctl.errors import ClusterError, ConflictError, QidfError, UsageError
from qidf_ctl.install import ownership, pipeline, snapshot
from qidf_ctl.install.pipeline import PROCESSOR, StatsSide
from qidf_ctl.install.result import ChangeResult
from qidf_ctl.install.shard_cost import CLIENT_CHANGE, client_change, cost_line
from qidf_ctl.install.snapshot import SnapshotPart
from qidf_ctl.install.state import META_KEY, SimilarityState
from qidf_ctl.querytime.statistics import INDEX, SHARD
from qidf_ctl.similarity import Mode
from qidf_ctl.stats import snapshot as snapshot_api

AUTO = "auto"
SNAPSHOT = "snapshot"
CHOICES = (AUTO, INDEX, SHARD, SNAPSHOT)
RECORD_KEY = "stats"
MIN_VERSION = (2, 9)  # search pipelines are generally available from OpenSearch 2.9


def check_choice(value: str) -> str:
    if value not in CHOICES:
        raise UsageError(f"--stats must be index, snapshot, shard or auto, got {value!r}")
    return value


@dataclass(frozen=True)
class Support:
    """Whether this cluster can run qidf's pipeline; ``known`` False when the user may not
    list the nodes (auto then keeps per-shard statistics and says so)."""

    available: bool
    reason: str
    engine_lacks: bool = False  # Elasticsearch, or an OpenSearch without search pipelines
    known: bool = True
    forbidden: bool = False  # the user may not manage search pipelines


def support(cluster: Cluster) -> Support:
    engine = cluster.engine
    if engine.distribution != "opensearch":
        return Support(False, f"{engine} has no search pipelines", engine_lacks=True)
    version = tuple(int(p) for p in engine.version.split(".")[:2] if p.isdigit())
    if version < MIN_VERSION:
        return Support(False, f"{engine} has no search pipelines (OpenSearch 2.9+)",
                       engine_lacks=True)
    try:
        nodes = cluster.request("GET", "/_nodes/search_pipelines")["nodes"]
    except ClusterError as exc:
        if exc.status in (401, 403):
            return Support(False, "this user may not list the nodes' search processors (GET "
                           "_nodes/search_pipelines needs cluster:monitor/nodes/info)",
                           known=False)
        raise
    missing = sorted(n.get("name", node_id) for node_id, n in nodes.items()
                     if PROCESSOR not in {p.get("type") for p in (n.get("search_pipelines")
                                                                  or {}).get(
                         "request_processors", [])})
    if missing:
        return Support(False, f"the search processor {PROCESSOR} is missing on "
                       f"{', '.join(missing)}: install the qidf plugin on every node (qidf "
                       "plugin install, or the zip of `qidf plugin build`)")
    try:  # may this user manage search pipelines? (asked before anything changes)
        pipeline.get_pipeline(cluster, f"{STATS_PIPELINE_PREFIX}*")
    except ClusterError as exc:
        if exc.status in (401, 403):
            return Support(False, "this user may not manage search pipelines (the qidf_stats "
                           "role in docs/how-to/privileges.md: cluster:admin/search/pipeline/*)",
                           forbidden=True)
        raise
    where = "the one node" if len(nodes) == 1 else f"all {len(nodes)} nodes"
    return Support(True, f"{PROCESSOR} is on {where}")


def resolve(cluster: Cluster, requested: str, shards: int,
            mode: Mode | None = None) -> tuple[str, str]:
    """``snapshot``, ``index`` or ``shard`` for this index, and one line saying why; ``mode``
    is the similarity's (a snapshot is read by the plugin's only; None: not known)."""
    check_choice(requested)
    if requested == SHARD:
        return SHARD, "per-shard statistics (asked for)"
    if requested == AUTO and shards <= 1:
        return SHARD, "one shard: its statistics are the index's"
    if requested == SNAPSHOT or (requested == AUTO and mode is Mode.PLUGIN):
        chosen = _resolve_snapshot(cluster, requested, mode)
        if chosen is not None:
            return chosen
    found = support(cluster)
    if found.available:
        return INDEX, f"index-wide statistics for scoring searches ({found.reason})"
    if requested == AUTO:
        return SHARD, f"per-shard statistics ({found.reason})"
    if found.engine_lacks:
        raise UsageError(f"--stats index needs a search pipeline, and {found.reason}: send "
                         f"{CLIENT_CHANGE} from the client instead, or keep one shard")
    if found.forbidden:
        raise ClusterError(f"--stats index: {found.reason}; or use --stats shard",
                           status=403, error_type="security_exception")
    if not found.known:
        return INDEX, "index-wide statistics (the nodes' processors could not be listed)"
    raise QidfError(f"--stats index: {found.reason}; or use --stats shard")


def _resolve_snapshot(cluster: Cluster, requested: str,
                      mode: Mode | None) -> tuple[str, str] | None:
    """``snapshot`` when every data node holds snapshots; None (``auto``: decide as before)."""
    if requested == SNAPSHOT and mode is Mode.SCRIPT:
        raise UsageError("--stats snapshot needs the native plugin's similarity (--mode plugin, "
                         "or auto on a cluster with the plugin): the Painless similarity cannot "
                         "read a statistics snapshot")
    found = snapshot_api.support(cluster)
    if found.available:
        return SNAPSHOT, f"index-wide statistics from a statistics snapshot ({found.reason})"
    if requested == AUTO:
        return None
    if found.forbidden:
        raise ClusterError(f"--stats snapshot: {found.reason}; or use --stats shard",
                           status=403, error_type="security_exception")
    raise QidfError(f"--stats snapshot: {found.reason}; or use --stats index (OpenSearch) or "
                    "--stats shard")


@dataclass
class StatsPlan:
    """The statistics part of one apply or revert."""

    scope: str  # what the index has afterwards: index or shard
    pipeline: str  # qidf's pipeline id for this index
    old: StatsSide
    new: StatsSide | None  # None: this part changes nothing
    record: dict[str, Any] | None  # _meta.qidf.stats afterwards (None: none)
    reason: str = ""
    warning: str | None = None  # per-shard statistics on several shards: what they cost
    kept: str | None = None  # qidf's pipeline stays: another index names it (ownership)
    snapshot: SnapshotPart | None = None  # the statistics snapshot taken or dropped

    @property
    def changes(self) -> bool:
        return self.new is not None or (self.snapshot is not None and self.snapshot.changes)

    def describe(self) -> str:
        return describe_scope(self.scope, (self.record or {}).get("composes"),
                              (self.record or {}).get("snapshot"))


def plan_apply(cluster: Cluster, state: SimilarityState, key: str,
                stats: str | None, mode: Mode | None = None) -> StatsPlan | None:
    """The statistics part of an apply: ``stats`` resolved and planned (None: ``stats`` None,
    left as it is)."""
    if stats is None:
        return None
    chosen, reason = resolve(cluster, stats, state.description.shards, mode)
    return plan(cluster, state, key, chosen, reason)


def note(result: ChangeResult, plan: StatsPlan | None) -> None:
    """What the statistics part says in apply's and revert's result."""
    if plan is None:
        return
    result.stats = plan.scope
    result.stats_reason = plan.reason
    result.stats_snapshot = (plan.record or {}).get("snapshot") or ""
    result.search_pipeline = (plan.new or plan.old).setting or ""
    if plan.warning:
        result.warnings.append(plan.warning)
    if plan.kept:
        result.warnings.append(plan.kept)


def meta_with(meta: dict[str, Any] | None, record: dict[str, Any], plan: StatsPlan | None,
                earlier: dict[str, Any] | None) -> dict[str, Any]:
    """The ``_meta`` to write: ``record`` as ``_meta.qidf`` with the statistics part set (as
    ``plan`` says, or as the ``earlier`` record had it when the statistics do not change)."""
    record = {k: v for k, v in record.items() if k != RECORD_KEY}
    stats = plan.record if plan is not None else (earlier or {}).get(RECORD_KEY)
    if stats is not None:
        record[RECORD_KEY] = stats
    if record:
        return {**(meta or {}), META_KEY: record}
    return {k: v for k, v in (meta or {}).items() if k != META_KEY}


def message(plan: StatsPlan | None) -> str:
    """The end of apply's and revert's one-line message, when the statistics change."""
    if plan is None or not plan.changes:
        return ""
    return f"; searches: {plan.describe()}" + (
        f" (default search pipeline {plan.pipeline})" if plan.scope == INDEX else "")


def describe_scope(scope: str, composes: str | None = None, key: str | None = None) -> str:
    if scope == SNAPSHOT:
        return "index-wide statistics from the statistics snapshot" + (
            f" {key}" if key else "") + " (plain searches, no dfs round trip)"
    if scope == INDEX:
        return "index-wide statistics (dfs_query_then_fetch) for scoring searches" + (
            f", after the processors of {composes}" if composes else "")
    return "per-shard statistics"


def _require(cluster: Cluster, name: str | None, doing: str) -> dict[str, Any] | None:
    """The body of the user's pipeline ``name``; refuse when it names one that is gone."""
    if not pipeline.names_pipeline(name):
        return None
    assert name is not None
    body = pipeline.get_pipeline(cluster, name)
    if body is None:
        raise ConflictError(f"the search pipeline {name!r} does not exist, so {doing} would "
                            "make every search of the index fail (\"Pipeline is not "
                            f"defined\"): create {name!r} again, or point "
                            f"{pipeline.SETTING} at a pipeline that exists")
    return body


def inherited(setting: str | None, recorded: dict[str, Any] | None, pid: str) -> bool:
    """Whether the index names another index's qidf pipeline that its own record (copied
    with it by a ``_clone`` or a restore) says qidf set."""
    return (setting is not None and setting != pid and setting.startswith(STATS_PIPELINE_PREFIX)
            and (recorded or {}).get("pipeline") == setting)


def plan(cluster: Cluster, state: SimilarityState, key: str, scope: str,
         reason: str = "") -> StatsPlan:
    """The change that gives ``state``'s index ``scope`` statistics (``resolve``d); refused
    before anything changes where it would overwrite a pipeline that is not the index's."""
    pid = stats_pipeline_id(key)
    flat = state.description.settings
    old = pipeline.read_side(cluster, flat, pid)
    recorded = (state.record or {}).get(RECORD_KEY)
    ours = old.setting == pid
    set_by_qidf = ours or inherited(old.setting, recorded, pid)
    previous = (recorded or {}).get("previous") if set_by_qidf else old.setting
    part = snapshot.plan(cluster, state, key, scope == SNAPSHOT)
    if scope == INDEX:
        if (previous or "").startswith(STATS_PIPELINE_PREFIX):
            raise ConflictError(
                f"{key}'s default search pipeline is {previous}, qidf's pipeline of "
                f"{pipeline.owner_key(str(previous))!r} (an index cloned or restored from it?), "
                f"and {key}'s _meta.qidf does not say what it replaced: set "
                f"{pipeline.SETTING} of {key} to the pipeline it should run (or _none), then "
                "apply again")
        user = previous if pipeline.names_pipeline(previous) else None
        body = pipeline.compose(key, user, _require(cluster, user, "running its processors"))
        existing = old.body if ours else pipeline.get_pipeline(cluster, pid)
        if not pipeline.same_body(existing, body):
            pipeline.check_writable(pid, existing)
        new: StatsSide | None = StatsSide(pid, body)
        record: dict[str, Any] | None = {"scope": INDEX, "pipeline": pid,
                                         "previous": previous, "composes": user}
    else:  # shard, or snapshot (which needs no pipeline: qidf's goes)
        if set_by_qidf:
            _require(cluster, previous, f"restoring {pipeline.SETTING} = {previous}")
        new = StatsSide(previous) if set_by_qidf else old
        record = {"scope": SNAPSHOT, "snapshot": key} if scope == SNAPSHOT else None
    if new == old and record == recorded:
        new = None
    warning = None
    if scope == SHARD and state.description.shards > 1:
        warning = f"{cost_line(state.description.shards)}; {client_change()}"
    kept = None
    if new is not None and ours and new.setting != pid and old.body is not None and \
            ownership.pipeline_owner(old.body) == key:
        using = ownership.users(cluster, pipeline.SETTING, pid, [state.index])
        if using != []:
            kept = ownership.kept_line("search pipeline", pid, using)
    return StatsPlan(scope, pid, old, new, record, reason, warning, kept=kept, snapshot=part)


def current_scope(flat_settings: dict[str, Any]) -> str:
    """What the index's searches use now: ``snapshot`` when its similarity names a statistics
    snapshot, ``index`` when its default pipeline is qidf's."""
    if snapshot_api.key_of(flat_settings):
        return SNAPSHOT
    setting = pipeline.setting_of(flat_settings) or ""
    return INDEX if setting.startswith(STATS_PIPELINE_PREFIX) else SHARD


def advice(cluster: Cluster, shards: int, current: str) -> str | None:
    """What per-shard statistics cost this index and how to avoid it (None: one shard, or
    index-wide statistics already): ``--stats index`` where the cluster can run qidf's
    pipeline, else the one-line client change."""
    line = cost_line(shards) if current == SHARD else None
    if line is None:
        return None
    try:
        snapshots = snapshot_api.support(cluster)
        found = support(cluster)
    except ClusterError:
        snapshots = snapshot_api.Support(False, "", known=False)
        found = Support(False, "", known=False)
    if snapshots.available:
        return (f"{line}; `qidf apply INDEX --mode plugin --stats snapshot` makes the plugin's "
                "similarity score every search with index-wide statistics, with no change to "
                "the application and no extra round trip")
    if found.available:
        return (f"{line}; `qidf apply INDEX --stats index` makes the server search it with "
                "index-wide statistics, with no change to the application")
    return f"{line}; {client_change()}"


def inspect(cluster: Cluster, state: SimilarityState, key: str) -> dict[str, Any]:
    """What ``show`` says about the statistics: the scope, the default pipeline and qidf's,
    and a ``problem`` line when searches fail or qidf's copy of a user pipeline is stale."""
    pid = stats_pipeline_id(key)
    setting = pipeline.setting_of(state.description.settings)
    recorded = (state.record or {}).get(RECORD_KEY) or {}
    qidf_named = setting == pid or inherited(setting, recorded, pid)
    found: dict[str, Any] = {"scope": current_scope(state.description.settings),
                             "default_pipeline": setting,
                             "qidf_pipeline": setting if qidf_named else None,
                             "composes": recorded.get("composes") if qidf_named else None,
                             "problem": None,
                             "snapshot": snapshot.inspect(cluster, state, key)}
    if recorded.get("pipeline") and not qidf_named:
        found["problem"] = (f"_meta.qidf.stats says {recorded.get('pipeline')} is the default "
                            f"search pipeline, but the index has {setting or 'none'}: `qidf "
                            f"recover {key}` rewrites the record")
    if found["snapshot"] and found["snapshot"].get("problem"):
        found["problem"] = found["snapshot"]["problem"]
    if not pipeline.names_pipeline(setting):
        return found
    assert setting is not None
    try:
        body = pipeline.get_pipeline(cluster, setting)
        if body is None:
            found["problem"] = (f"every search of {key} that names no pipeline fails: its "
                                f"default search pipeline {setting!r} does not exist"
                                + (f" (`qidf recover {key}` writes it again)" if setting == pid
                                   else ""))
        elif setting == pid and found["composes"]:
            user = pipeline.get_pipeline(cluster, found["composes"])
            if user is None:
                found["problem"] = (f"{pid} runs a copy of the processors of "
                                    f"{found['composes']!r}, which no longer exists (revert "
                                    "would point the index back at it): create it again")
            elif not pipeline.same_body(body, pipeline.compose(key, found["composes"], user)):
                found["problem"] = (f"{found['composes']!r} changed since qidf copied its "
                                    f"processors into {pid}: `qidf apply {key} --stats index` "
                                    "copies them again")
    except ClusterError as exc:
        if exc.status not in (401, 403):
            raise
    return found


def advice_for(cluster: Cluster, name: str) -> str | None:
    """``advice`` for the index ``name`` resolves to (``predict`` prints it)."""
    description = describe_index(cluster, name)
    return advice(cluster, description.shards, current_scope(description.settings))
