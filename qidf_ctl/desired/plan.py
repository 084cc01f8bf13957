"""``plan``: for every index and template the file reaches, what it has, what it will have,
and how it gets there (close, clone, a template write, a rollover), before anything changes.

A plan is self-contained: it records the q each ``auto`` target will get and the statistics
it came from, and a fingerprint of each item's current state, so a saved plan applies
exactly what was reviewed, or refuses when the cluster moved in between. An ``auto``
decision of q = 1 plans no change on an index qidf never changed and a revert on one it
changed (``install.auto``), as ``qidf apply INDEX --q auto`` does.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from qidf_ctl import install
from qidf_ctl.cluster import Cluster, redact, segment
from qidf_ctl.desired import render, templates
from qidf_ctl.desired.connections import Connections
from qidf_ctl.desired.diff import drift_reason, meta_diff, settings_diff
from qidf_ctl.desired.items import (
    CREATE,
    DATA_STREAM,
    INDEX,
    NONE,
    REVERT,
    ROLLOVER,
    UPDATE,
    Plan,
    PlanItem,
    fingerprint,
    index_fingerprint,
)
from qidf_ctl.desired.model import DesiredState, Similarity, Target
from qidf_ctl.desired.statistics import add_stats
from qidf_ctl.desired.templates import COMPONENT_TEMPLATE, INDEX_TEMPLATE, NAMED
from qidf_ctl.errors import ClusterError, ConflictError, NotFoundError, UsageError
from qidf_ctl.install.auto import BM25_STAYS, untouched
from qidf_ctl.install.record import installed_record
from qidf_ctl.progress import BarFactory, Progress, no_bar, quiet
from qidf_ctl.similarity import (
    Installed,
    Mode,
    flatten,
    parse,
    same_settings,
    similarity_value,
    unflatten,
)


class _Planner:
    """Builds the items of one plan; remembers what each target already claimed."""

    def __init__(self, conns: Connections, measure: bool, progress: Progress,
                 bar: BarFactory) -> None:
        self.conns = conns
        self.measure = measure
        self.progress = progress
        self.bar = bar
        self.items: list[PlanItem] = []
        self.notes: list[str] = []
        self.claimed: dict[tuple[str | None, str, str], Target] = {}

    # --- bookkeeping -------------------------------------------------------------------

    def claim(self, target: Target, kind: str, name: str) -> bool:
        """True when ``target`` is the first to reach ``name``; an earlier target asking
        for another similarity is a conflict the file must resolve."""
        key = (target.cluster, kind, name)
        earlier = self.claimed.get(key)
        if earlier is None:
            self.claimed[key] = target
            return True
        if earlier.similarity != target.similarity:
            raise UsageError(
                f"{kind.replace('_', ' ')} {name!r} is reached by {earlier.label} and "
                f"{target.label} with different similarities: narrow one of them")
        return False

    def context(self, target: Target) -> tuple[Cluster, Mode, bool]:
        cluster = self.conns.get(target.cluster)
        mode, _ = self.conns.mode(target.cluster, target.similarity.mode)
        return cluster, mode, cluster.engine.default_is_legacy_bm25

    # --- indices -----------------------------------------------------------------------

    def index(self, target: Target, name: str) -> None:
        cluster, mode, legacy = self.context(target)
        install.check_supported(cluster.engine, install.Strategy(target.similarity.strategy))
        state = install.read_state(cluster, name)
        if not self.claim(target, INDEX, state.index):
            return
        item = self._index_item(target, cluster, mode, legacy, state)
        add_stats(item, cluster, state, target.similarity.stats)
        self.items.append(item)

    def _auto_in_sync(self, target: Target, state: install.SimilarityState, mode: Mode,
                      legacy: bool) -> bool:
        sim = target.similarity
        have = state.installed
        installed = (state.record or {}).get("installed") or {}
        prediction = installed.get("prediction") or {}
        if have.kind != "qlog" or have.params is None or have.params.q == BM25_STAYS:
            return False  # q-log at q = 1 from an earlier auto: a q = 1 decision installs none
        expected = "judgments" if sim.judgments else sim.predictor
        if prediction.get("predictor") != expected or installed.get("q") != have.params.q:
            return False
        if prediction.get("query_kind") != sim.queries_are:
            return False
        if ((prediction.get("judgments") or {}).get("spec")) != sim.judgments:
            return False
        if sim.field is not None and prediction.get("field") != sim.field:
            return False
        wanted = flatten(similarity_value(sim.params(have.params.q), mode, legacy))
        return same_settings(state.similarity_flat, wanted)

    def _index_item(self, target: Target, cluster: Cluster, mode: Mode, legacy: bool,
                    state: install.SimilarityState) -> PlanItem:
        sim = target.similarity
        have = state.installed
        item = PlanItem(
            cluster=target.cluster, kind=INDEX, name=state.index, target=target.label,
            action=NONE, strategy=sim.strategy, mode=mode.value, before=have.describe(),
            after=have.describe(), field=sim.field,
            fingerprint=index_fingerprint(state))
        extra: dict[str, Any] = {}
        if sim.auto:
            if self._auto_in_sync(target, state, mode, legacy):
                item.params = have.params.as_dict() if have.params else None
                return item
            # Only a decision tells whether an index qidf never changed is in sync (at q = 1
            # it is, and stays untouched), so even check measures those.
            if not self.measure and not (untouched(state) and state.status == "open"):
                return self._unmeasured(item, state, sim, mode, legacy)
            if state.status != "open":
                raise ConflictError(f"index {state.index!r} is closed: q = \"auto\" cannot "
                                    "measure it; open it first")
            from qidf_ctl.predictors import predict_for_index

            try:
                prediction = predict_for_index(cluster, state.index, sim.field, sim.sample,
                                               predictor=sim.predictor or "",
                                               query_kind=sim.queries_are,
                                               progress=self.progress, bar=self.bar)
                if sim.judgments:
                    from qidf_ctl.desired.judged import judged_decision

                    prediction = judged_decision(cluster, state.index, sim, prediction,
                                                 self.progress, self.bar)
            except ClusterError as exc:
                if self.measure or exc.status not in (401, 403):
                    raise
                item = self._unmeasured(item, state, sim, mode, legacy)
                item.reason += (" (q not decided: these credentials cannot read the index's "
                                f"statistics: {exc})")
                return item
            extra = prediction.record()
            item.prediction = extra["prediction"]
            if prediction.q == BM25_STAYS:
                return self._bm25_stays(item, state, prediction.reason)
            params = sim.params(prediction.q)
        else:
            params = sim.params()
        item.params = params.as_dict()
        wanted = flatten(similarity_value(params, mode, legacy))
        item.after = Installed("qlog", mode, params, legacy).describe()
        if same_settings(state.similarity_flat, wanted):
            return item
        item.action = UPDATE
        item.reason = drift_reason(have, params, mode)
        item.settings_diff = settings_diff(state.similarity_flat, wanted)
        item.meta_diff = meta_diff(state.record,
                                   installed_record(state, params, mode, legacy, extra))
        item.notes = [
            f"field {f!r} names its own similarity {s!r} and keeps it"
            for f, s in sorted(state.own_similarity_fields.items())]
        if sim.field is not None and sim.field in state.own_similarity_fields:
            item.notes.append(f"field {sim.field!r} names its own similarity: apply will "
                              "refuse this index")
        if state.status != "open":
            item.notes.append("the index is closed: apply will refuse it (open it first)")
        return item

    @staticmethod
    def _unmeasured(item: PlanItem, state: install.SimilarityState, sim: Similarity,
                    mode: Mode, legacy: bool) -> PlanItem:
        """check's answer for an auto target it does not measure: qidf changed the index,
        not to what the pinned predictor chose."""
        have = state.installed
        q = have.params.q if have.kind == "qlog" and have.params else 1.0
        item.action = UPDATE
        item.after = f"q-log BM25 q=auto ({sim.predictor}), predicted when planned"
        recorded = ((state.record or {}).get("installed") or {}).get("prediction") or {}
        if have.kind == "qlog" and q == BM25_STAYS and recorded:
            item.reason = ("has q-log q=1 from an earlier q = \"auto\": a decision of q = 1 "
                           "now keeps the similarity the index had before qidf (plan decides "
                           "again: revert, or a q below 1)")
        elif have.kind != "qlog" or not same_settings(
                state.similarity_flat, flatten(similarity_value(sim.params(q), mode, legacy))):
            item.reason = drift_reason(have, sim.params(q), mode)
        elif recorded.get("predictor") == sim.predictor and \
                recorded.get("query_kind") != sim.queries_are:
            item.reason = (f"has q {q:g} decided with queries_are = "
                           f"{recorded.get('query_kind')!r}, not {sim.queries_are!r}")
        else:
            item.reason = f"has q {q:g}, not predicted by {sim.predictor}"
        return item

    @staticmethod
    def _bm25_stays(item: PlanItem, state: install.SimilarityState, why: str) -> PlanItem:
        """auto decided q = 1: nothing to change on an index qidf never changed; one it
        changed goes back to what it had before qidf's first apply (``install.revert``)."""
        if untouched(state):
            item.notes.append(f"q auto decided q = 1 ({why}): the index keeps its similarity")
            return item
        previous = dict((state.record or {}).get("previous", {}))
        item.action = REVERT
        item.after = parse(unflatten(previous) or None).describe()
        item.reason = (f"q auto decided q = 1 ({why}): back to the similarity it had before "
                       "qidf's first apply, as `qidf revert` does")
        item.settings_diff = settings_diff(state.similarity_flat, previous)
        item.meta_diff = meta_diff(state.record, None)
        return item

    # --- templates and what they reach ---------------------------------------------------

    def template(self, target: Target) -> None:
        kind = INDEX_TEMPLATE if target.kind == "template" else COMPONENT_TEMPLATE
        cluster, mode, legacy = self.context(target)
        if not self.claim(target, kind, target.name):
            return
        params = target.similarity.params()
        wanted = flatten(similarity_value(params, mode, legacy))
        current = templates.get_template(cluster, kind, target.name)
        fields = target.similarity.field_qs
        named, properties = render.field_similarities(fields, params, mode, legacy)
        record = render.template_record(params, mode, legacy, fields=fields)
        after = Installed("qlog", mode, params, legacy).describe()
        item = PlanItem(cluster=target.cluster, kind=kind, name=target.name,
                        target=target.label, action=NONE, strategy="none", mode=mode.value,
                        before="(does not exist)", after=after, params=params.as_dict(),
                        fingerprint=fingerprint(current))
        if current is None:
            if kind == INDEX_TEMPLATE and not target.patterns:
                raise NotFoundError(
                    f"index template {target.name!r} does not exist: give patterns = [...] in "
                    f"{target.label} for qidf to create it")
            item.action, item.reason = CREATE, "does not exist"
            item.body = (render.index_template(params, mode, legacy, list(target.patterns),
                                               priority=target.priority,
                                               data_stream=target.data_stream, fields=fields)
                         if kind == INDEX_TEMPLATE else
                         render.component_template(params, mode, legacy, fields=fields))
            item.settings_diff = settings_diff({}, wanted) + settings_diff(
                {}, flatten(named), NAMED)
            item.meta_diff = meta_diff(None, record)
        else:
            have_flat = templates.similarity_flat(current)
            have = parse(unflatten(have_flat) or None)
            item.before = have.describe()
            have_named = templates.named_flat(current)
            fields_drift = templates.fields_drift(current, fields, named)
            if not same_settings(have_flat, wanted) or fields_drift:
                item.action = UPDATE
                item.reason = (drift_reason(have, params, mode)
                               if not same_settings(have_flat, wanted) else
                               "per-field similarities differ: " + ", ".join(fields_drift))
                item.body = templates.with_fields(
                    templates.with_similarity(current, wanted, record), named, properties)
                item.settings_diff = (settings_diff(have_flat, wanted)
                                      + settings_diff(have_named, flatten(named), NAMED))
                item.meta_diff = meta_diff(templates.record(current), record)
        if item.changes:
            item.notes.append("no close: indices created from it from now on get the "
                              "similarity at creation")
        if fields:
            item.notes.append(f"fields {', '.join(fields)} get their own q in indices created "
                              "from now on; existing indices keep their fields' similarity "
                              "(the engine fixes it at creation)")
        self.items.append(item)
        self._reach(target, cluster, kind, current, item)

    def _reach(self, target: Target, cluster: Cluster, kind: str,
               current: dict[str, Any] | None, item: PlanItem) -> None:
        """The indices and data streams the template reaches, each its own item."""
        body = current or item.body or {}
        if kind == INDEX_TEMPLATE:
            owners = {target.name: body}
        else:
            owners = templates.composing(cluster, target.name)
            if not owners:
                item.notes.append("no index template lists it in composed_of yet: add it "
                                  "there for new indices to get the similarity")
        rec = templates.record(current) if current else None
        installed_at = ((rec or {}).get("installed") or {}).get("at_ms")
        patterns = sorted({p for b in owners.values() for p in b.get("index_patterns", [])})
        found = templates.match(cluster, patterns)
        for index in sorted(found.indices):
            if target.existing or (installed_at is not None
                                   and found.indices[index] > int(installed_at)):
                self.index(target, index)
        for stream in sorted(found.data_streams):
            owner = templates.data_stream_template(cluster, stream)
            if owner in owners:
                self._data_stream(target, stream, installed_at)

    def _data_stream(self, target: Target, stream: str, installed_at: int | None) -> None:
        if not self.claim(target, DATA_STREAM, stream):
            return
        cluster, mode, legacy = self.context(target)
        found = cluster.request("GET", f"/_data_stream/{segment(stream)}")["data_streams"][0]
        write = found["indices"][-1]["index_name"]
        state = install.read_state(cluster, write)
        params = target.similarity.params()
        wanted = flatten(similarity_value(params, mode, legacy))
        item = PlanItem(cluster=target.cluster, kind=DATA_STREAM, name=stream,
                        target=target.label, action=NONE, strategy="none", mode=mode.value,
                        before=f"write index {write}: {state.installed.describe()}",
                        after=Installed("qlog", mode, params, legacy).describe(),
                        params=params.as_dict(), fingerprint=fingerprint(write))
        if not same_settings(state.similarity_flat, wanted):
            created = int(state.description.settings.get("index.creation_date", 0))
            # Created after qidf wrote the template, yet without it: something overrides it.
            broken = installed_at is not None and created > int(installed_at)
            if target.rollover or broken:
                item.action = ROLLOVER
                item.reason = drift_reason(state.installed, params, mode,
                                           f"its write index {write}")
                item.notes.append(f"POST {stream}/_rollover: the new write index gets the "
                                  "similarity from the template; older backing indices keep "
                                  "theirs (searches over the stream mix both until they age "
                                  "out)")
            else:
                item.notes.append(f"write index {write} keeps {state.installed.describe()} "
                                  "until the next rollover (rollover = true rolls it over "
                                  "now)")
        self.items.append(item)

    # --- selectors ----------------------------------------------------------------------

    def target(self, target: Target) -> None:
        if target.kind in ("template", "component_template"):
            self.template(target)
            return
        cluster = self.conns.get(target.cluster)
        if target.kind == "index":
            self._refuse_data_stream(cluster, target)
            self.index(target, target.name)
        elif target.kind == "alias":
            for index in templates.alias_indices(cluster, target.name):
                self.index(target, index)
        else:
            found = templates.match(cluster, [target.name])
            for stream in sorted(found.data_streams):
                self.notes.append(f"{target.label} matches data stream {stream!r}: qidf "
                                  "changes data streams through their index template (add a "
                                  "template target)")
            if not found.indices:
                self.notes.append(f"{target.label} matches no open index")
            for index in sorted(found.indices):
                self.index(target, index)

    @staticmethod
    def _refuse_data_stream(cluster: Cluster, target: Target) -> None:
        resolved = templates.resolve(cluster, target.name)
        if any(s.get("name") == target.name for s in resolved.get("data_streams", [])):
            owner = templates.data_stream_template(cluster, target.name)
            raise UsageError(
                f"{target.label}: {target.name!r} is a data stream: manage it through its "
                f"index template (template = \"{owner}\") so that its next backing index "
                "gets the similarity")


def make_plan(state: DesiredState, conns: Connections, *, measure: bool = True,
              progress: Progress = quiet, bar: BarFactory = no_bar) -> Plan:
    """What applying ``state`` would change, target by target in file order (templates
    before the indices they reach, indices by name). ``measure=False`` skips predicting q
    for auto targets that are out of sync (``check`` only needs to know they are), except
    on open indices qidf never changed: only the decision says whether those are in sync."""
    planner = _Planner(conns, measure, progress, bar)
    for target in state.targets:
        progress(f"planning {target.label}")
        planner.target(target)
    clusters = {}
    for name in state.clusters():
        cluster = conns.get(name)
        clusters[Connections.label(name)] = {"url": redact(cluster.url),
                                             "engine": cluster.engine.spelling}
    return Plan(
        source=state.source, sha256=state.sha256, items=planner.items,
        profiles={n: p.as_dict() for n, p in state.profiles.items()}, clusters=clusters,
        notes=planner.notes, measured=measure,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
