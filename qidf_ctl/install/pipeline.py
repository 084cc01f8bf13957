"""The index's default search pipeline, through which qidf makes scoring searches use
index-wide term statistics (``apply --stats index``), with no change to the application.

OpenSearch runs an index's default pipeline (the dynamic setting
``index.search.default_pipeline``) for every search that names no pipeline of its own. qidf
puts one pipeline per index, ``qidf-stats-<name>``, whose request processors are the ones
of the pipeline the index had (copied, in order) followed by the plugin's
``qidf_index_statistics`` (last, so that it decides on the request the shards will run), and
whose response and phase processors are that pipeline's. The user's pipeline itself is never
written; ``revert`` points the index back at it and deletes qidf's.

A default pipeline that does not exist makes every search of the index fail ("Pipeline X is
not defined"), and the engine lets both happen (it checks neither the setting nor a delete of
a pipeline in use). So ``converge`` always writes the pipeline before the setting names it,
and deletes it only after the setting names something else: whichever step a run is stopped
at, searches keep working, and running it again finishes the change. When the similarity
changes too, the pipeline is written first (``stage_steps``, before the close or the clone),
so that a refusal of it stops the change before anything else has happened.

The pipeline is the index's own by ``ownership``'s rules: its description names the index it
belongs to; a pipeline of that name that is not the index's is never overwritten, and qidf's
is deleted only when no other index names it (a ``_clone`` of the index does).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, segment
from qidf_ctl.cluster.names import STATS_PIPELINE_PREFIX
from qidf_ctl.errors import ClusterError
from qidf_ctl.install import index_ops, ownership
from qidf_ctl.install.journal import Journal
from qidf_ctl.progress import Progress, quiet

PROCESSOR = "qidf_index_statistics"
SETTING = "index.search.default_pipeline"
NO_PIPELINE = "_none"  # the setting's own value for "none"
STAGES = ("request_processors", "response_processors", "phase_results_processors")


@dataclass(frozen=True)
class StatsSide:
    """One end of a change: the value of ``index.search.default_pipeline`` (None: not set)
    and, when it names qidf's pipeline, that pipeline's body."""

    setting: str | None
    body: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> StatsSide | None:
        return None if data is None else cls(data.get("setting"), data.get("body"))


def names_pipeline(setting: str | None) -> bool:
    """Whether a value of the setting names a pipeline (not unset, not ``_none``)."""
    return setting not in (None, "", NO_PIPELINE)


def setting_of(flat_settings: dict[str, Any]) -> str | None:
    value = flat_settings.get(SETTING)
    return None if value is None else str(value)


def get_pipeline(cluster: Cluster, pipeline: str) -> dict[str, Any] | None:
    """The stored body of ``pipeline``; None when it does not exist (as on Elasticsearch,
    which has no search pipelines and answers their path with 400 "no handler found")."""
    if getattr(cluster.engine, "distribution", "") == "elasticsearch":
        return None
    try:
        found = cluster.request("GET", f"/_search/pipeline/{segment(pipeline)}")
    except ClusterError as exc:
        if exc.status == 404:
            return None
        raise
    body = (found or {}).get(pipeline)
    return dict(body) if isinstance(body, dict) else None


def put_pipeline(cluster: Cluster, pipeline: str, body: dict[str, Any]) -> None:
    cluster.request("PUT", f"/_search/pipeline/{segment(pipeline)}", body)


def owner_key(pipeline: str) -> str:
    """The index (its public name) qidf's pipeline ``pipeline`` is made for."""
    return pipeline[len(STATS_PIPELINE_PREFIX):] if pipeline.startswith(
        STATS_PIPELINE_PREFIX) else pipeline


def check_writable(pipeline: str, existing: dict[str, Any] | None) -> None:
    """Ownership rule 1: a pipeline of this name that exists must be this index's."""
    if existing is None:
        return
    key = owner_key(pipeline)
    ownership.check_owner(
        "search pipeline", pipeline, ownership.pipeline_owner(existing), key,
        f"rename or delete that pipeline (GET _search/pipeline/{pipeline} shows it), or use "
        f"--stats shard")


def write_owned(cluster: Cluster, pipeline: str, body: dict[str, Any],
                progress: Progress = quiet) -> bool:
    """Write qidf's ``pipeline`` unless it holds ``body`` already; refuse one that is not
    this index's. True when it was written."""
    existing = get_pipeline(cluster, pipeline)
    if existing is not None and same_body(existing, body):
        return False
    check_writable(pipeline, existing)
    progress(f"writing the search pipeline {pipeline}")
    put_pipeline(cluster, pipeline, body)
    return True


def delete_unused(cluster: Cluster, pipeline: str, besides: list[str],
                  progress: Progress = quiet) -> str | None:
    """Ownership rule 2: delete qidf's ``pipeline`` when it is this index's and no index but
    ``besides`` names it; else keep it. None when deleted (or already gone); the line saying
    why it was kept otherwise."""
    existing = get_pipeline(cluster, pipeline)
    if existing is None:
        return None
    if ownership.pipeline_owner(existing) != owner_key(pipeline):
        return (f"kept the search pipeline {pipeline}: it is not qidf's pipeline of "
                f"{owner_key(pipeline)!r}")
    using = ownership.users(cluster, SETTING, pipeline, besides)
    if using != []:
        line = ownership.kept_line("search pipeline", pipeline, using)
        progress(line)
        return line
    progress(f"deleting the search pipeline {pipeline}")
    delete_pipeline(cluster, pipeline)
    return None


def delete_pipeline(cluster: Cluster, pipeline: str) -> None:
    try:
        cluster.request("DELETE", f"/_search/pipeline/{segment(pipeline)}")
    except ClusterError as exc:
        if exc.status != 404:
            raise


def compose(key: str, user: str | None, user_body: dict[str, Any] | None) -> dict[str, Any]:
    """qidf's pipeline for the index ``key``: ``user``'s processors (if the index had a
    default pipeline), then qidf's request processor."""
    body: dict[str, Any] = {  # the description is the owner marker (ownership.py)
        "description": ownership.PIPELINE_MARK.format(key=key) + " (dfs_query_then_fetch)"
                       + (f"; the processors of {user} run first" if user else ""),
    }
    source = user_body or {}
    for stage in STAGES:
        processors = [dict(p) for p in source.get(stage) or []]
        if stage == "request_processors":
            processors.append({PROCESSOR: {"tag": "qidf"}})
        if processors:
            body[stage] = processors
    return body


def same_body(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    return (a or {}) == (b or {})


def converge(cluster: Cluster, index: str, pipeline: str, side: StatsSide,
             progress: Progress = quiet, besides: tuple[str, ...] = ()) -> bool:
    """Make ``index`` and qidf's ``pipeline`` what ``side`` says, each part only if it
    differs: the pipeline written, the setting moved, then the pipeline deleted when no
    index names it any more (``besides``: an index about to be deleted, the source of a
    clone swap). True when anything changed."""
    changed = False
    flat = index_ops.flat_settings(cluster, index) or {}
    now = setting_of(flat)
    if side.setting == pipeline:
        changed = write_owned(cluster, pipeline, side.body or {}, progress)
    if now != side.setting:
        progress(f"setting {SETTING} of {index} to {side.setting or '(not set)'}")
        index_ops.put_settings(cluster, index, {SETTING: side.setting})
        changed = True
    if side.setting != pipeline and get_pipeline(cluster, pipeline) is not None:
        kept = delete_unused(cluster, pipeline, [index, *besides], progress)
        changed = changed or kept is None
    return changed


def read_side(cluster: Cluster, flat_settings: dict[str, Any], pipeline: str) -> StatsSide:
    """What an index has now, seen from qidf's pipeline ``pipeline``."""
    setting = setting_of(flat_settings)
    return StatsSide(setting, get_pipeline(cluster, pipeline) if setting == pipeline else None)


# --- the step of a journaled change ---------------------------------------------------------

STEP = "pipelined"  # journaled right after it; a fault point (``faults``)
STAGE = "staged"  # qidf's pipeline written before the similarity steps; not journaled


def _retiring(journal: Journal, index: str) -> tuple[str, ...]:
    """The index a clone swap replaces (it names the pipeline until it is deleted)."""
    return (journal.index,) if journal.index != index else ()


def steps(cluster: Cluster, journal: Journal, index: str,
          progress: Progress) -> list[tuple[str, Callable[[], None], bool]]:
    """The statistics step of ``journal`` on ``index`` (the one serving the name once the
    similarity part is done); none when that part does not change."""
    new = StatsSide.from_dict(journal.stats_new)
    pid = journal.pipeline
    if new is None or pid is None:
        return []

    def run() -> None:
        converge(cluster, index, pid, new, progress, _retiring(journal, index))

    return [(STEP, run, True)]


def stage_steps(cluster: Cluster, journal: Journal,
                progress: Progress) -> list[tuple[str, Callable[[], None], bool]]:
    """qidf's pipeline written before the index is closed or cloned: nothing names it yet,
    so it changes no search, and a refusal (a privilege, a node without the processor)
    stops the change before anything else has."""
    new = StatsSide.from_dict(journal.stats_new)
    pid = journal.pipeline
    if new is None or pid is None or new.setting != pid:
        return []

    def run() -> None:
        write_owned(cluster, pid, new.body or {}, progress)

    return [(STAGE, run, False)]


def settle(cluster: Cluster, journal: Journal, index: str, end: str,
           progress: Progress = quiet) -> None:
    """Recovery: bring the statistics part to the same end (``old`` or ``new``) as the
    similarity part."""
    side = StatsSide.from_dict(journal.stats_new if end == "new" else journal.stats_old)
    if side is not None and journal.pipeline is not None:
        converge(cluster, index, journal.pipeline, side, progress, _retiring(journal, index))
