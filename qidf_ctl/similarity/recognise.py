"""What ``index.similarity.default`` holds, as qidf understands it: built-in, q-log (and how
installed), or someone else's custom similarity."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qidf_ctl.formula import IdfForm
from qidf_ctl.similarity.painless import MARK_RE, scripted_similarity
from qidf_ctl.similarity.params import Mode, QlogParams
from qidf_ctl.similarity.settings import PLUGIN_TYPE, flatten


@dataclass(frozen=True)
class Installed:
    """The installed default similarity, recognised from its settings."""

    kind: str  # "builtin", "qlog", or "other"
    mode: Mode | None = None
    params: QlogParams | None = None
    legacy: bool | None = None
    raw: dict[str, Any] | None = None

    def describe(self) -> str:
        if self.kind == "builtin":
            extra = {k: v for k, v in (self.raw or {}).items() if k != "type"}
            if extra:
                args = ", ".join(f"{k}={v}" for k, v in sorted(extra.items()))
                return f"built-in BM25 with {args}"
            return "built-in default similarity (BM25)"
        if self.kind == "qlog" and self.params is not None and self.mode is not None:
            how = "Painless scripted similarity" if self.mode is Mode.SCRIPT else "qidf plugin"
            return f"q-log BM25 {self.params.shown()} via {how}"
        return f"custom similarity not installed by qidf: {self.raw}"


def parse(default_similarity: dict[str, Any] | None) -> Installed:
    """Recognise the installed default similarity from its (nested) settings."""
    if not default_similarity:
        return Installed("builtin")
    sim_type = default_similarity.get("type")
    if sim_type == PLUGIN_TYPE:
        params = QlogParams(
            q=float(default_similarity.get("q", 1.0)),
            k1=float(default_similarity.get("k1", 1.2)),
            b=float(default_similarity.get("b", 0.75)),
            form=IdfForm(default_similarity.get("form", "lucene")),
        )
        return Installed("qlog", Mode.PLUGIN, params, None, default_similarity)
    if sim_type == "scripted":
        source = str((default_similarity.get("weight_script") or {}).get("source", ""))
        match = MARK_RE.search(source)
        if match:
            params = QlogParams(float(match["q"]), float(match["k1"]), float(match["b"]),
                                IdfForm(match["form"]))
            expected = scripted_similarity(params, match["legacy"] == "true")
            if flatten(expected) == flatten(default_similarity):
                return Installed("qlog", Mode.SCRIPT, params, match["legacy"] == "true",
                                 default_similarity)
    if sim_type == "BM25":
        return Installed("builtin", raw=default_similarity)
    return Installed("other", raw=default_similarity)
