"""Queries that refuse, or quietly ignore, a custom similarity: what ``apply`` warns about
before the index gets one.

Found on real engines (docs/explanation/engine-notes.md): Elasticsearch's
``combined_fields`` fails on an index whose similarity is not BM25 ("[combined_fields]
queries can only be used with the [BM25] similarity"; OpenSearch has no such query), and a
``percolate`` query scores the stored queries against the document in a temporary in-memory
index that uses the engine's default similarity, not the index's (matching is unaffected). A
percolator field is in the mapping, so that case is detected; ``combined_fields`` lives in
the application's queries, so Elasticsearch users get the line whenever the similarity
changes.
"""

from __future__ import annotations

from typing import Any

from qidf_ctl.install.state import SimilarityState

QUERY_TIME = ("or keep BM25 on the index and rank with q-log at query time (`qidf search`, "
              "docs/how-to/query-time.md)")


def query_warnings(state: SimilarityState, engine: Any) -> list[str]:
    """One line per query kind that will not score with q-log on this index."""
    lines = []
    percolators = sorted(p for p, f in state.description.fields.items()
                         if f.type == "percolator")
    if percolators:
        lines.append(
            f"{state.index} has percolator field{'s' if len(percolators) > 1 else ''} "
            f"{', '.join(percolators)}: percolate queries score the stored queries with the "
            "engine's default similarity (an in-memory index of the document), not q-log; "
            "matching is unaffected. Keep the percolator queries in an index of their own "
            f"if their scores matter, {QUERY_TIME}")
    if getattr(engine, "distribution", "") == "elasticsearch":
        lines.append(
            f"combined_fields queries on {state.index} will fail (\"[combined_fields] queries "
            "can only be used with the [BM25] similarity\"): use multi_match with type "
            f"cross_fields instead, {QUERY_TIME}")
    return lines
