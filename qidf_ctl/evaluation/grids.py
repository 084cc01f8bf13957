"""Parsing a grid of parameter values from the command line: one parser for q, k1 and b."""

from __future__ import annotations

import math

from qidf_ctl.errors import UsageError


def parse_values(text: str, option: str, lo: float, hi: float, what: str) -> tuple[float, ...]:
    """``0.05,0.1,0.3`` or ``start:stop:step`` (stop included), each in [lo, hi], sorted,
    duplicates dropped; anything else is one usage error naming ``option``."""
    text = text.strip()
    try:
        if ":" in text:
            start, stop, step = (float(x) for x in text.split(":"))
            if step <= 0:
                raise UsageError(f"{option} step must be > 0, got {step:g}")
            n = math.floor((stop - start) / step + 1e-9) + 1
            values = [round(start + i * step, 10) for i in range(max(n, 0))]
        else:
            values = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"{option} must be {what} like 0.05,0.1,0.3 or start:stop:step, "
                         f"got {text!r}") from None
    bad = [v for v in values if not (math.isfinite(v) and lo <= v <= hi)]
    if bad or not values:
        raise UsageError(f"{option} needs {what} in [{lo:g}, {hi:g}], got {text!r}")
    return tuple(sorted(set(values)))
