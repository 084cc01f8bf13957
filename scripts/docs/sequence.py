"""The apply sequence of each strategy, as an SVG diagram drawn from the code's own steps.

``close_swap.steps``, ``reopen_swap.steps`` and ``clone_swap.steps`` build the list that
``run_steps`` executes: (name, action, journaled) in order. Built here with a journal and no
cluster (the actions are closures that run only when called), they give the names, the order,
which steps are journaled, and which only happen with ``--stats index`` (the search pipeline).
The outage (close, reopen) or write block (clone) is the run of unjournaled steps up to the next
journaled one: the strategies keep journal writes out of that window, as their comments say.

What this module adds is words: a short label per step (a step the code gains without a label
fails the site's build) and what each strategy's window refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any

from qidf_ctl.install import clone_swap, close_swap, reopen_swap
from qidf_ctl.install.journal import Journal
from qidf_ctl.install.strategy import Strategy
from qidf_ctl.progress import quiet

STEP_BUILDERS: dict[Strategy, Callable[..., list[tuple[str, Any, bool]]]] = {
    Strategy.CLOSE: close_swap.steps, Strategy.CLONE: clone_swap.steps,
    Strategy.REOPEN: reopen_swap.steps}

# "strategy:step" first, then "step": the words under each box.
LABELS = {
    "staged": "write qidf's search pipeline (--stats index)",
    "closed": "POST INDEX/_close",
    "updated": "PUT INDEX/_settings: the new index.similarity.default",
    "opened": "POST INDEX/_open, wait for the primaries",
    "reopened": "PUT INDEX/_settings?reopen=true (the engine closes, updates, reopens)",
    "reopen:searchable": "wait until every primary is active",
    "blocked": "PUT INDEX/_block/write (drains writes in flight)",
    "cloned": "POST INDEX/_clone/CLONE with the new similarity (hard links)",
    "configured": "only if a key must go: close, update, open the clone",
    "clone:searchable": "wait until the clone is searchable and holds every document",
    "swapped": "POST _aliases: every name to the clone, in one atomic call",
    "pipelined": "point index.search.default_pipeline at qidf's pipeline (--stats index)",
    "recorded": "write _meta.qidf: what was installed, by whom, why",
    "retired": "delete the old index once its searches have finished",
}
WINDOW = {
    Strategy.CLOSE: "searches and writes fail (the index is closed)",
    Strategy.REOPEN: "searches and writes fail (closed inside the call)",
    Strategy.CLONE: "writes refused (403, retryable); searches keep working",
}


@dataclass(frozen=True)
class Step:
    name: str
    journaled: bool
    stats_only: bool  # only with --stats index (the search pipeline changes too)
    in_window: bool


def _journal(strategy: Strategy, with_stats: bool) -> Journal:
    pipeline = "qidf-stats-code"
    return Journal(
        key="code", run_id="r", operation="apply", strategy=strategy.value, index="code",
        index_uuid="u", old={"type": "BM25"}, new={"type": "qlog_bm25", "q": 0.3},
        had_meta=False, old_meta={}, new_meta={},
        target="code-qidf-r" if strategy is Strategy.CLONE else None,
        pipeline=pipeline if with_stats else None,
        stats_old={"setting": None, "body": None} if with_stats else None,
        stats_new={"setting": pipeline, "body": {}} if with_stats else None)


def _names(strategy: Strategy, with_stats: bool) -> list[tuple[str, bool]]:
    built = STEP_BUILDERS[strategy](None, _journal(strategy, with_stats), None, quiet, None)
    return [(name, journaled) for name, _action, journaled in built]


def steps(strategy: Strategy) -> list[Step]:
    """The steps of a similarity change with ``strategy``, as the code runs them."""
    full = _names(strategy, with_stats=True)
    plain = {name for name, _ in _names(strategy, with_stats=False)}
    found: list[Step] = []
    opened = closed = False
    for name, journaled in full:
        stats_only = name not in plain
        starts = not opened and not journaled and not stats_only
        opened = opened or starts
        inside = opened and not closed
        closed = closed or (inside and journaled)
        found.append(Step(name, journaled, stats_only, inside))
    return found


def label(strategy: Strategy, name: str) -> str:
    text = LABELS.get(f"{strategy.value}:{name}") or LABELS.get(name)
    if text is None:
        raise ValueError(f"the {strategy.value} strategy has a step {name!r} that "
                         "scripts/docs/sequence.py has no label for: add one to LABELS")
    return text


# --- drawing ------------------------------------------------------------------------------

ROW, WIDTH, LEFT, BOX = 30, 760, 150, 22
INK, MUTED, WINDOW_FILL, JOURNAL = "#1a1a2e", "#666677", "#fde2e1", "#3949ab"


def _text(x: float, y: float, body: str, size: int = 12, fill: str = INK,
          weight: str = "normal", anchor: str = "start") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" fill="{fill}" font-weight="{weight}" '
            f'text-anchor="{anchor}">{escape(body)}</text>')


def _strategy_rows(strategy: Strategy, top: float) -> tuple[list[str], float]:
    found = steps(strategy)
    out = [_text(12, top + 16, f"--strategy {strategy.value}", 13, weight="bold")]
    y = top + 28
    window = [i for i, s in enumerate(found) if s.in_window]
    if window:
        y0, y1 = y + window[0] * ROW - 4, y + (window[-1] + 1) * ROW - 4
        out.append(f'<rect x="{LEFT - 12}" y="{y0}" width="{WIDTH - LEFT + 4}" '
                   f'height="{y1 - y0}" rx="6" fill="{WINDOW_FILL}"/>')
        out.append(_text(WIDTH - 12, y0 + 14, WINDOW[strategy], 11, "#b3261e",
                         anchor="end"))
    out.append(_text(12, y + 15, "journal: intent", 11, JOURNAL))
    out.append(f'<line x1="{LEFT + BOX / 2}" y1="{y + BOX}" x2="{LEFT + BOX / 2}" '
               f'y2="{y + (len(found) - 1) * ROW}" stroke="{MUTED}"/>')
    for i, step in enumerate(found):
        row = y + i * ROW
        dash = ' stroke-dasharray="4 3"' if step.stats_only else ""
        out.append(f'<rect x="{LEFT}" y="{row}" width="{BOX}" height="{BOX}" rx="4" '
                   f'fill="#ffffff" stroke="{INK}"{dash}/>')
        out.append(_text(LEFT + BOX / 2, row + 15, str(i + 1), 11, anchor="middle"))
        out.append(_text(LEFT + BOX + 10, row + 11, step.name, 12, weight="bold"))
        out.append(_text(LEFT + BOX + 10, row + 24, label(strategy, step.name), 10.5, MUTED))
        if step.journaled:
            out.append(_text(12, row + 15 + ROW / 2, f"journal: {step.name}", 11, JOURNAL))
    end = y + len(found) * ROW
    out.append(_text(12, end + 18, "journal deleted: done", 11, JOURNAL))
    return out, end + 30


def svg() -> str:
    """Every strategy, top to bottom, on a white card (it reads the same in the dark theme)."""
    parts: list[str] = []
    y = 10.0
    for strategy in (Strategy.CLOSE, Strategy.REOPEN, Strategy.CLONE):
        rows, y = _strategy_rows(strategy, y)
        parts += rows
        y += 8
    parts.append(_text(12, y + 6, "Dashed: only with --stats index. Shaded: the window the "
                       "command measures and prints.", 10.5, MUTED))
    parts.append(_text(12, y + 21, "The lease is held throughout; after a crash, recovery "
                       "finishes or undoes the change from what the cluster shows.", 10.5,
                       MUTED))
    height = y + 34
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" font-family="system-ui, sans-serif" '
            f'role="img"><rect width="100%" height="100%" rx="8" fill="#ffffff"/>'
            + "".join(parts) + "</svg>\n")
