"""How q is decided, each the way a user gets it from the product:

- **judged** (the older half's commits as judgments): the sweep's bootstrap guard
  (``qidf_ctl.evaluation.recommend``, what ``qidf sweep`` recommends) over the older half's
  per-query curves, starting from the reference ``qidf sweep`` uses by default (the q
  ``apply --q auto`` chooses with these messages as its sample) or from BM25 (q = 1); and
  ``apply --q auto --judgments DIR --dry-run`` once the product has it.
- **label-free**: ``apply --q auto --dry-run`` run as a command, without a query sample and
  with 1,000 of the older half's messages as ``--queries``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from qidf_ctl.evaluation.recommend import recommend
from qidf_research.cli_runs import run_cli
from qidf_research.filetasks.curves import Curves
from qidf_research.paths import REPO


def guarded(curves: Curves, qids: Iterable[str], reference_q: float, reference: str
            ) -> dict[str, Any]:
    """The sweep's recommendation on ``qids`` (the product's function, as ``qidf sweep``
    calls it on its own curve)."""
    ids = list(qids)
    rec = recommend(curves.restricted(ids), reference_q, reference)
    return {"q": rec.q, "reference_q": rec.reference_q, "reference": rec.reference,
            "best_mean_q": rec.tested_q, "doubt": rec.doubt, "wins": rec.wins,
            "losses": rec.losses, "reason": rec.reason, "queries": len(ids)}


def label_free(url: str, index: str, field: str, sample: Path | None) -> dict[str, Any]:
    """``qidf apply INDEX --q auto --dry-run`` (with ``--queries SAMPLE``): the q it would
    install and its one-line reason."""
    args = [index, "--q", "auto", "--dry-run", "--field", field]
    if sample is not None:
        args += ["--queries", str(sample)]
    out = run_cli(url, args, "apply")["out"]
    decision = out.get("decision") or {}
    return {"q": float(decision.get("q", 1.0)), "reason": decision.get("reason", ""),
            "predictor": decision.get("predictor", ""), "action": out.get("action"),
            "query_kind_use": decision.get("query_kind_use"),
            "queries": (decision.get("queries") or {}).get("queries_in_file"),
            "argv": ["qidf", "apply", *args, "--json"]}


def product_reads_judgments() -> bool:
    """True when ``apply --q auto`` takes ``--judgments DIR`` (issue 32 item 4)."""
    proc = subprocess.run([sys.executable, "-m", "qidf_ctl", "apply", "--help"],
                          capture_output=True, text=True, check=False, cwd=REPO,
                          env={**os.environ, "COLUMNS": "200"})
    return "--judgments" in proc.stdout


def judged_command(url: str, index: str, field: str, folder: Path) -> dict[str, Any]:
    """``qidf apply INDEX --q auto --judgments FOLDER --dry-run``: the decision a user gets
    from their own past commits."""
    args = [index, "--q", "auto", "--judgments", str(folder), "--dry-run", "--field", field]
    out = run_cli(url, args, "apply")["out"]
    decision = out.get("decision") or {}
    return {"q": float(decision.get("q", 1.0)), "reason": decision.get("reason", ""),
            "decision": decision, "argv": ["qidf", "apply", *args, "--json"]}


def sweep_command(url: str, index: str, field: str, queries: Path, qrels: Path,
                  reference: str = "auto") -> dict[str, Any]:
    """``qidf sweep INDEX --query-time --reference REF`` on a judged half: its
    recommendation, to check ``guarded`` against the command."""
    args = [index, "--queries", str(queries), "--qrels", str(qrels), "--field", field,
            "--query-time", "--reference", reference]
    out = run_cli(url, args, "sweep")
    rec = out["out"].get("recommendation") or {}
    return {"q": rec.get("q"), "reference_q": rec.get("reference_q"),
            "reason": rec.get("reason"), "oracle_q": out["out"].get("oracle_q"),
            "seconds": out["seconds"], "argv": ["qidf", "sweep", *args, "--json"]}


def distinct_qs(decided: Mapping[str, Mapping[str, Any]]) -> list[float]:
    return sorted({float(d["q"]) for d in decided.values() if d.get("q") is not None})
