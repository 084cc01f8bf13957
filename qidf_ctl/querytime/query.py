"""The query body: one boosted ``term`` clause per distinct token, built on the merged-repeats
query that ``qidf_ctl.evaluation.queries.term_query`` makes (so a long code query keeps the
same clauses, and respects ``indices.query.bool.max_clause_count``, the same way)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from qidf_ctl.evaluation.queries import MAX_CLAUSES, term_query

MATCH_NONE: dict[str, Any] = {"match_none": {}}


def boosted_query(
    field: str,
    counts: Counter[str],
    boosts: Mapping[str, float],
    *,
    max_clauses: int = MAX_CLAUSES,
    minimum_should_match: int | str | None = None,
    filters: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A bool of ``term`` clauses whose boosts are ``boosts`` (count times the IDF ratio).

    Filters go into the bool's ``filter`` (they restrict, never score). A bool with a filter
    would otherwise match every filtered document with score 0, so ``minimum_should_match``
    then defaults to 1, which is what a ``match`` query under a filter does. A text that
    analyses to no token matches nothing (an empty bool would match everything).
    """
    if not counts:
        return dict(MATCH_NONE)
    query = term_query(field, counts, max_clauses)
    bool_ = query["bool"]
    for clause in bool_["should"]:
        spec = clause["term"][field]
        spec["boost"] = float(boosts.get(spec["value"], spec["boost"]))
    if filters:
        bool_["filter"] = [dict(f) for f in filters]
        bool_["minimum_should_match"] = 1
    if minimum_should_match is not None:
        bool_["minimum_should_match"] = minimum_should_match
    return query
