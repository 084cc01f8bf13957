"""Before timing anything: every system returns the scores it should."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qidf_research.speed.client import Client
from qidf_research.speed.queries import QuerySet
from qidf_research.speed.settings import BM25, PAINLESS, PLUGIN, PLUGIN_Q1


def check_scores(client: Client, names: dict[str, str], sets: Sequence[QuerySet],
                 q: float, n: int = 20) -> dict[str, Any]:
    """The clones must really score with the q-log IDF, and plugin and Painless must agree:
    otherwise the comparison would be of the wrong similarities."""
    differ, top_equal, max_rel, q1_equal = 0, 0, 0.0, 0
    checked = 0
    for qs in sets:
        for body in qs.bodies[:n]:
            hits = {}
            for system, index in names.items():
                _, parsed = client.search(index, body)
                hits[system] = [(h["_id"], float(h["_score"])) for h in parsed["hits"]["hits"]]
            checked += 1
            if [s for _, s in hits[BM25]] != [s for _, s in hits[PLUGIN]]:
                differ += 1
            if hits[BM25] == hits[PLUGIN_Q1]:
                q1_equal += 1
            a, b = hits[PLUGIN], hits[PAINLESS]
            if [i for i, _ in a] == [i for i, _ in b]:
                top_equal += 1
            for (_, sa), (_, sb) in zip(a, b, strict=False):
                max_rel = max(max_rel, abs(sa - sb) / max(abs(sa), 1e-9))
    result = {"queries": checked, "plugin_scores_differ_from_bm25": differ,
              "plugin_painless_same_top10_ids": top_equal,
              "plugin_painless_max_rel_score_diff": max_rel,
              "plugin_q1_hits_and_scores_equal_bm25": q1_equal}
    if q != 1.0 and differ < checked // 2:
        raise RuntimeError(f"plugin scores equal BM25's on {checked - differ}/{checked} "
                           f"queries at q={q}: the similarity is not in effect ({result})")
    if max_rel > 1e-4:
        raise RuntimeError(f"plugin and Painless disagree (max relative diff {max_rel:.2g})")
    if q1_equal != checked:
        raise RuntimeError(f"plugin at q=1 differs from BM25 on {checked - q1_equal} queries")
    return result


def check_query_time(client: Client, names: dict[str, str], sets: Sequence[QuerySet],
                     n: int = 50) -> dict[str, Any]:
    """Query time must return the installed plugin's hits (same q, same segments): else its
    latency would be that of a different ranking."""
    from qidf_research.speed.settings import QT_COLD, QT_SEARCH, QT_WARM

    checked, identical, max_rel = 0, 0, 0.0
    for qs in sets:
        for i, body in enumerate(qs.bodies[:n]):
            _, parsed = client.search(names[PLUGIN], body)
            theirs = [(h["_id"], float(h["_score"])) for h in parsed["hits"]["hits"]]
            for system in (QT_SEARCH, QT_WARM, QT_COLD):
                items, build = qs.for_system(system)
                sent = items[i] if build is None else build(items[i])
                _, mine = client.search(names[system], sent)
                ours = [(h["_id"], float(h["_score"])) for h in mine["hits"]["hits"]]
                checked += 1
                identical += [d for d, _ in ours] == [d for d, _ in theirs]
                for (_, a), (_, b) in zip(theirs, ours, strict=False):
                    max_rel = max(max_rel, abs(a - b) / max(abs(a), 1e-9))
    result = {"searches": checked, "identical_top10_ids_with_plugin": identical,
              "max_rel_score_diff_with_plugin": max_rel}
    if identical != checked or max_rel > 1e-4:
        raise RuntimeError(f"query time does not rank like the installed plugin: {result}")
    return result
