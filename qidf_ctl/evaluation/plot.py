"""The sweep's NDCG@10 curve as a PNG (matplotlib, the ``plot`` extra)."""

from __future__ import annotations

from pathlib import Path

from qidf_ctl.errors import UsageError, missing_extra
from qidf_ctl.evaluation.sweep import SweepResult


def require(path: str | Path | None = None) -> None:
    """Fail now, before any sweep, when the plot extra is missing or ``path``'s extension
    names a format matplotlib does not write (a ValueError after the sweep otherwise)."""
    try:
        import matplotlib  # noqa: F401 - first: a submodule already imported would not fail
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError:
        raise missing_extra("--plot", "plot", "matplotlib") from None
    suffix = Path(path).suffix.lower().lstrip(".") if path is not None else ""
    formats = FigureCanvasAgg.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise UsageError(f"--plot {path}: .{suffix} is not a picture format matplotlib "
                         f"writes ({', '.join(sorted(formats))}): use e.g. .png or .svg")


def marks(result: SweepResult) -> list[tuple[str, float, float]]:
    """(label, q, NDCG@10) of the points the plot marks: the oracle (best on these queries),
    the recommended q and the reference it started from (``--q auto``'s q, or the one
    given), each once; a q that is several of them gets one mark naming them all."""
    at = {p.q: p.ndcg10 for p in result.points}
    names: dict[float, list[str]] = {result.oracle_q: ["oracle"]}
    rec = result.recommendation
    if rec is not None:
        names.setdefault(rec.q, []).append("recommended")
        if rec.reference_q in at:
            names.setdefault(rec.reference_q, []).append(rec.reference)
    return [(" = ".join(n), q, at.get(q, result.oracle_ndcg10)) for q, n in names.items()]


STYLES = [("red", "o"), ("green", "s"), ("purple", "^")]


def plot(result: SweepResult, path: str | Path, title: str | None = None) -> Path:
    """The NDCG@10 curve over q as a PNG, with the baseline, the oracle, the recommended q
    and the ``--q auto`` q marked."""
    try:
        import matplotlib
    except ImportError:
        raise missing_extra("--plot", "plot", "matplotlib") from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    qs = [p.q for p in result.points]
    ys = [p.ndcg10 for p in result.points]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    ax.plot(qs, ys, marker="o", ms=3, label="q-log BM25")
    ax.axhline(result.baseline_ndcg10, color="grey", ls="--",
               label=f"baseline ({result.baseline_ndcg10:.4f})")
    for (name, q, y), (color, marker) in zip(marks(result), STYLES, strict=False):
        ax.scatter([q], [y], color=color, marker=marker, s=60 - 12 * STYLES.index(
            (color, marker)), zorder=3, label=f"{name}: q = {q:g} ({y:.4f})")
    ax.set_xlabel("q")
    ax.set_ylabel("NDCG@10")
    ax.set_title(title or f"{result.index}: {result.queries} queries")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path
