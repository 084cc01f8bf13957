"""Which documents of the index hold a repository path: the bridge from the files a commit
changed to the document ids a qrels file names.

Two ways, chosen by the path field's type (from ``_field_caps``: read privileges suffice):

- ``terms`` when the field, or a keyword sub-field of it (``path.keyword``), is a keyword:
  batched ``terms`` queries on exactly the paths the history touched, each hit's path read
  from doc values. The cost follows the history (a few requests for 10,000 commits), not the
  index, and the match is exact.
- ``scan`` when the path is analysed text only: an analysed field cannot match a whole path
  exactly, so every document's path is read once from ``_source`` (a scroll, with a progress
  bar) and matched in memory. The cost follows the index: about a second per 50,000 documents.

``prefix`` is what the index puts before a repository-relative path (``cargo/`` when the
indexer kept the checkout's folder name): it is added to every path looked up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, index_path
from qidf_ctl.errors import ClusterError, UsageError
from qidf_ctl.evaluation.budget import source_text
from qidf_ctl.progress import BarFactory, no_bar

TERMS = "terms"
SCAN = "scan"
KEYWORD_TYPES = ("keyword", "constant_keyword", "wildcard")
TEXT_TYPES = ("text", "match_only_text")
BATCH = 512  # paths per terms query; halved while a batch has more hits than one page holds
PAGE = 10_000  # the engines' index.max_result_window default
SCROLL_KEEP = "2m"


@dataclass(frozen=True)
class PathField:
    """How paths are matched: ``strategy`` (terms or scan) on ``field`` (the keyword field
    queried, or the text field read from ``_source``), for the field the user named."""

    named: str
    field: str
    strategy: str
    index: str

    def describe(self) -> str:
        if self.strategy == TERMS:
            via = "" if self.field == self.named else f" (its keyword sub-field {self.field})"
            return f"terms lookups on keyword field {self.named}{via}"
        return (f"a scan of text field {self.named} from _source (an analysed field cannot "
                "match a whole path; a keyword field would need only lookups)")


def _field_types(cluster: Cluster, index: str) -> dict[str, set[str]]:
    caps = cluster.request("GET", index_path(index, "_field_caps"), params={"fields": "*"})
    return {name: set(types) for name, types in (caps.get("fields") or {}).items()}


def path_field(cluster: Cluster, index: str, named: str) -> PathField:
    """How ``named`` of ``index`` matches paths; a usage error when the index has no such
    field or it can hold no path (a number, a date...)."""
    types = _field_types(cluster, index)
    own = types.get(named)
    if own is None:
        listed = ", ".join(sorted(n for n, t in types.items()
                                  if t & {*KEYWORD_TYPES, *TEXT_TYPES}
                                  and not n.startswith("_"))[:20]) or "none"
        raise UsageError(f"--path-field {named!r} is not a field of index {index!r} "
                         f"(keyword and text fields: {listed})")
    if own & set(KEYWORD_TYPES):
        return PathField(named, named, TERMS, index)
    if own & set(TEXT_TYPES):
        subs = sorted(n for n, t in types.items()
                      if n.startswith(named + ".") and t & set(KEYWORD_TYPES)
                      and "." not in n[len(named) + 1:])
        if subs:
            return PathField(named, subs[0], TERMS, index)
        return PathField(named, named, SCAN, index)
    raise UsageError(f"--path-field {named!r} of index {index!r} is a "
                     f"{'/'.join(sorted(own))} field: give the keyword or text field that "
                     "holds each document's file path")


def _values(hit: dict[str, Any], field: str) -> list[str]:
    found = (hit.get("fields") or {}).get(field)
    if found is None:
        return []
    return [str(v) for v in (found if isinstance(found, list) else [found])]


def _terms_batch(cluster: Cluster, pf: PathField, paths: Sequence[str]
                 ) -> dict[str, list[str]] | None:
    """Documents of ``paths``; None when they have more hits than one page holds."""
    body = {"size": PAGE, "_source": False, "track_total_hits": True,
            "docvalue_fields": [pf.field], "query": {"terms": {pf.field: list(paths)}}}
    resp = cluster.request("POST", index_path(pf.index, "_search"), body)
    hits = resp["hits"]["hits"]
    total = resp["hits"]["total"]
    total_n = int(total["value"] if isinstance(total, dict) else total)
    if total_n > len(hits):
        return None
    wanted = set(paths)
    found: dict[str, list[str]] = {}
    for hit in hits:
        for value in _values(hit, pf.field):
            if value in wanted:
                found.setdefault(value, []).append(str(hit["_id"]))
    return found


def _lookup_terms(cluster: Cluster, pf: PathField, paths: Sequence[str],
                  bar: BarFactory) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    pending = [list(paths[i:i + BATCH]) for i in range(0, len(paths), BATCH)]
    with bar("looking up paths", len(paths)) as advance:
        while pending:
            batch = pending.pop()
            got = _terms_batch(cluster, pf, batch)
            if got is None:
                if len(batch) == 1:
                    raise UsageError(f"path {batch[0]!r} is held by more than {PAGE:,} "
                                     f"documents of {pf.index!r}: --path-field must name "
                                     "each document's own file path")
                half = len(batch) // 2
                pending += [batch[:half], batch[half:]]
                continue
            found.update(got)
            advance(len(batch))
    return found


def _scan(cluster: Cluster, pf: PathField, wanted: set[str],
          bar: BarFactory) -> dict[str, list[str]]:
    total = int(cluster.request("POST", index_path(pf.index, "_count"),
                                {"query": {"exists": {"field": pf.field}}})["count"])
    root = pf.field.split(".", 1)[0]
    body = {"size": PAGE, "_source": [pf.field, root], "sort": ["_doc"],
            "query": {"exists": {"field": pf.field}}}
    found: dict[str, list[str]] = {}
    resp = cluster.request("POST", index_path(pf.index, "_search"), body,
                           {"scroll": SCROLL_KEEP})
    scroll_id = resp.get("_scroll_id")
    try:
        with bar(f"reading {pf.field} of every document", total) as advance:
            while resp["hits"]["hits"]:
                for hit in resp["hits"]["hits"]:
                    value = source_text(hit.get("_source") or {}, pf.field)
                    if value in wanted:
                        found.setdefault(value, []).append(str(hit["_id"]))
                advance(len(resp["hits"]["hits"]))
                resp = cluster.request("POST", "/_search/scroll",
                                       {"scroll": SCROLL_KEEP, "scroll_id": scroll_id})
                scroll_id = resp.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            with contextlib.suppress(ClusterError):
                cluster.request("DELETE", "/_search/scroll", {"scroll_id": [scroll_id]})
    return found


def lookup(cluster: Cluster, pf: PathField, paths: Iterable[str], prefix: str = "",
           bar: BarFactory = no_bar) -> dict[str, list[str]]:
    """Repository path -> the ids of the documents holding it (prefix added for the lookup);
    paths no document holds are absent."""
    keyed = {prefix + p: p for p in dict.fromkeys(paths)}
    if not keyed:
        return {}
    if pf.strategy == TERMS:
        found = _lookup_terms(cluster, pf, list(keyed), bar)
    else:
        found = _scan(cluster, pf, set(keyed), bar)
    return {keyed[k]: sorted(ids) for k, ids in found.items()}


def sample_paths(cluster: Cluster, pf: PathField, k: int = 3) -> list[str]:
    """A few paths the index holds, to show next to "nothing matched"."""
    body: dict[str, Any] = {"size": k, "query": {"exists": {"field": pf.field}}}
    if pf.strategy == TERMS:
        body.update({"_source": False, "docvalue_fields": [pf.field]})
    else:
        body["_source"] = [pf.field]
    hits = cluster.request("POST", index_path(pf.index, "_search"), body)["hits"]["hits"]
    if pf.strategy == TERMS:
        return [v for h in hits for v in _values(h, pf.field)][:k]
    return [source_text(h.get("_source") or {}, pf.field) for h in hits]
