"""An index's similarity as qidf reads it before changing anything: the settings of
``index.similarity.default``, qidf's record in the mapping's ``_meta``, and the text fields
whose mapping names a similarity of their own (which ``default`` does not reach)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qidf_ctl.cluster import Cluster, IndexDescription, describe_index
from qidf_ctl.similarity import SETTING_PREFIX, SIMILARITY_NAME, Installed, parse, unflatten

META_KEY = "qidf"


def similarity_of(flat_settings: dict[str, Any]) -> dict[str, Any]:
    """``index.similarity.default.*`` of flat index settings, keys relative to that prefix.
    Null values are left out: a clone made with ``"key": null`` lists the key as null."""
    return {k[len(SETTING_PREFIX):]: v for k, v in flat_settings.items()
            if k.startswith(SETTING_PREFIX) and v is not None}


@dataclass
class SimilarityState:
    """An index's description seen through its default similarity."""

    description: IndexDescription

    @property
    def index(self) -> str:
        return self.description.index

    @property
    def status(self) -> str:
        return self.description.status

    @property
    def meta(self) -> dict[str, Any]:
        return self.description.meta

    @property
    def text_fields(self) -> list[str]:
        return self.description.text_fields

    @property
    def similarity_flat(self) -> dict[str, Any]:
        """``index.similarity.default.*`` settings, keys relative to that prefix."""
        return similarity_of(self.description.settings)

    @property
    def similarity(self) -> dict[str, Any]:
        return unflatten(self.similarity_flat)

    @property
    def installed(self) -> Installed:
        return parse(self.similarity or None)

    @property
    def record(self) -> dict[str, Any] | None:
        rec = self.meta.get(META_KEY)
        return rec if isinstance(rec, dict) else None

    @property
    def own_similarity_fields(self) -> dict[str, str]:
        """Text fields whose mapping names a similarity other than ``default``."""
        return {p: f.similarity for p, f in self.description.fields.items()
                if f.is_text and f.similarity and f.similarity != SIMILARITY_NAME}


def read_state(cluster: Cluster, name: str) -> SimilarityState:
    """Resolve ``name`` and read what apply, revert and show need."""
    return SimilarityState(describe_index(cluster, name))
