"""Each file's length in LLM tokens (cl100k_base through the product's counter,
``qidf_ctl.evaluation.tokens``): what the Recall@8K/27K-tokens walks add up. Counted once
per corpus and kept beside it (``tokens.json``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from qidf_ctl.evaluation.tokens import counter

COUNTER = "cl100k"


def counts(docs: Mapping[str, str], folder: Path) -> dict[str, int]:
    """path -> tokens, read from ``folder/tokens.json`` when it covers exactly ``docs``."""
    path = folder / "tokens.json"
    if path.exists():
        cached = json.loads(path.read_text(encoding="utf-8"))
        if cached.get("counter") == COUNTER and set(cached["tokens"]) == set(docs):
            return {k: int(v) for k, v in cached["tokens"].items()}
    count = counter(COUNTER)
    out = {d: count(t) for d, t in docs.items()}
    path.write_text(json.dumps({"counter": COUNTER, "tokens": out}) + "\n", encoding="utf-8")
    return out
