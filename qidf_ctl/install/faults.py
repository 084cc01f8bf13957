"""A fault hook for tests only: stop this process right after a named step.

``QIDF_FAULT=<point>:<action>[,<point>:<action>...]`` where ``point`` is a step name
(``closed``, ``updated``... see ``close_swap.STEPS`` and ``clone_swap.STEPS``), the same name
with ``.logged`` (after the journal recorded the step), or ``leased`` / ``scratch`` /
``recover``; ``action`` is ``SIGKILL``, ``SIGTERM``, ``SIGINT`` or ``STOP`` (SIGSTOP: the test
kills or restarts the node meanwhile, then continues or kills this process). The fault tests
use it to prove that any interruption leaves an index the next qidf command can make open and
consistent. It is not a user feature: nothing in qidf sets it.
"""

from __future__ import annotations

import os
import signal

FAULT_ENV = "QIDF_FAULT"
ACTIONS = {"SIGKILL": signal.SIGKILL, "SIGTERM": signal.SIGTERM, "SIGINT": signal.SIGINT,
           "STOP": signal.SIGSTOP}
_fired: set[str] = set()


def planned() -> dict[str, str]:
    """point -> action, from the environment."""
    spec = os.environ.get(FAULT_ENV, "")
    pairs = (item.rpartition(":") for item in spec.split(",") if item.strip())
    return {point.strip(): action.strip().upper() for point, _, action in pairs if point}


def at(point: str) -> None:
    """Send this process the planned signal if ``point`` is where the test wants it (once)."""
    action = planned().get(point)
    if action is None or point in _fired or action not in ACTIONS:
        return
    _fired.add(point)
    os.kill(os.getpid(), ACTIONS[action])
