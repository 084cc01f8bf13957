"""Parsing a grid of parameter values from the command line: one parser for q, k1 and b.

Every point of a grid is an install on the live index and an evaluation, so a grid is
bounded before anything is built: at most ``MAX_POINTS`` values, each finite and in range,
``start:stop:step`` counted arithmetically before any list exists (``0:2:1e-9`` is two
billion points: refused at once instead of running until memory ends). ``MAX_SETTINGS``
bounds the joint (q, k1, b) grid in the same way.
"""

from __future__ import annotations

import math

from qidf_ctl.errors import UsageError

MAX_POINTS = 201  # [0, 2] in steps of 0.01
MAX_SETTINGS = 1000  # the joint q x k1 x b grid: ~1,000 installs is hours on a live index
_SLACK = 1e-9  # stop included although start + n * step misses it by a rounding error


def _number(text: str, option: str, what: str, whole: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{option} must be {what} like 0.05,0.1,0.3 or start:stop:step, got "
                         f"{whole[:80]!r}") from None
    if not math.isfinite(value):
        raise UsageError(f"{option} takes finite numbers, got {text.strip()[:30]!r}")
    return value


def _range(text: str, option: str, lo: float, hi: float, what: str) -> list[float]:
    parts = text.split(":")
    if len(parts) != 3:
        raise UsageError(f"{option} start:stop:step takes three numbers (e.g. 0.1:1:0.1), got "
                         f"{text[:80]!r}")
    start, stop, step = (_number(p, option, what, text) for p in parts)
    if step <= 0:
        raise UsageError(f"{option} step must be > 0, got {step:g}")
    if stop < start:
        raise UsageError(f"{option} stop {stop:g} is below start {start:g}")
    for value in (start, stop):
        if not lo <= value <= hi:
            raise UsageError(f"{option} needs {what} in [{lo:g}, {hi:g}], got {value:g}")
    count = math.floor((stop - start) / step + _SLACK) + 1
    if count > MAX_POINTS:
        raise UsageError(f"{option} {text!r} has {count:,} points, more than {MAX_POINTS}: "
                         "use a larger step (each point is an install and an evaluation)")
    return [min(round(start + i * step, 10), hi) for i in range(count)]


def parse_values(text: str, option: str, lo: float, hi: float, what: str) -> tuple[float, ...]:
    """``0.05,0.1,0.3`` or ``start:stop:step`` (stop included), each finite and in
    [lo, hi], at most ``MAX_POINTS``, sorted, duplicates dropped; anything else is one
    usage error naming ``option``."""
    text = text.strip()
    if ":" in text:
        values = _range(text, option, lo, hi, what)
    else:
        items = [x for x in text.split(",") if x.strip()]
        if len(items) > MAX_POINTS:
            raise UsageError(f"{option} lists {len(items):,} values, more than {MAX_POINTS}")
        values = [_number(x, option, what, text) for x in items]
    bad = [v for v in values if not lo <= v <= hi]
    if bad or not values:
        raise UsageError(f"{option} needs {what} in [{lo:g}, {hi:g}], got {text[:80]!r}")
    return tuple(sorted(set(values)))


def check_settings(*grids: tuple[float, ...]) -> int:
    """The number of settings of a joint grid; a usage error above ``MAX_SETTINGS``."""
    count = math.prod(len(g) for g in grids)
    if count > MAX_SETTINGS:
        sizes = " x ".join(str(len(g)) for g in grids)
        raise UsageError(f"the joint grid has {sizes} = {count:,} settings, more than "
                         f"{MAX_SETTINGS:,} (each is an install and an evaluation): narrow "
                         "--grid, --k1-grid or --b-grid")
    return count
