"""Two rankings of one query side by side, as a search engineer checks a change: each hit of
the new ranking with its rank in the reference (moved up, down, unchanged, or new to the top),
and the reference's hits that left it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

# Short fields that name a document better than its id, in the order they are tried.
LABEL_FIELDS = ("path", "file_path", "filepath", "file", "filename", "name", "title")
MAX_LABEL = 80


@dataclass(frozen=True)
class Ranked:
    """One hit: its rank, id, a short label (a path where the document has one), score."""

    rank: int
    id: str
    label: str
    score: float


@dataclass(frozen=True)
class Moved:
    """A hit of the new ranking and where the reference had it (None: not in its top)."""

    hit: Ranked
    was: int | None

    @property
    def move(self) -> str:
        """``+3`` (up three places), ``-2`` (down), ``=`` (same rank), ``new``."""
        if self.was is None:
            return "new"
        delta = self.was - self.hit.rank
        return "=" if delta == 0 else f"{delta:+d}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self.hit), "was": self.was, "move": self.move}


def label(hit: Mapping[str, Any]) -> str:
    """A path-like short field of the hit's ``_source`` where it has one, else its id."""
    source = hit.get("_source") or {}
    for name in LABEL_FIELDS:
        value = source.get(name) if isinstance(source, dict) else None
        if isinstance(value, str) and value.strip() and len(value) <= MAX_LABEL:
            return value.strip()
    return str(hit.get("_id"))


def ranked(hits: Sequence[Mapping[str, Any]]) -> list[Ranked]:
    return [Ranked(i, str(h["_id"]), label(h), float(h.get("_score") or 0.0))
            for i, h in enumerate(hits, start=1)]


def moves(new: Sequence[Ranked], reference: Sequence[Ranked]) -> list[Moved]:
    """Each hit of ``new`` with its rank in ``reference`` (None beyond it)."""
    where = {r.id: r.rank for r in reference}
    return [Moved(h, where.get(h.id)) for h in new]


def left(new: Sequence[Ranked], reference: Sequence[Ranked], top: int) -> list[Moved]:
    """The reference's top ``top`` hits missing from the new top ``top``, with their new rank
    (``Moved.hit`` is the reference's hit; ``was`` its new rank, None beyond ``new``)."""
    shown = {h.id for h in new[:top]}
    where = {h.id: h.rank for h in new}
    return [Moved(r, where.get(r.id)) for r in reference[:top] if r.id not in shown]
