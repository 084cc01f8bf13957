"""What apply, revert or recover did, for humans and for ``--json``."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ChangeResult:
    index: str
    action: str
    changed: bool
    message: str
    before: str = ""
    after: str = ""
    warnings: list[str] = field(default_factory=list)
    settings_body: dict[str, Any] = field(default_factory=dict)
    closed_seconds: float = 0.0  # --strategy close: searches and writes failed this long
    write_blocked_seconds: float = 0.0  # --strategy clone: writes were refused this long
    dry_run: bool = False
    mode_reason: str = ""
    strategy: str = "close"
    run_id: str = ""
    new_index: str = ""  # --strategy clone: the index the name serves now
    recovered: list[str] = field(default_factory=list)  # interrupted operations settled first
    seconds: float = 0.0  # the whole command, lease to release
    step_seconds: dict[str, float] = field(default_factory=dict)  # each step's duration
    decision: dict[str, Any] | None = None  # --q auto: the decided q, its reason and evidence
    stats: str = ""  # statistics of scoring searches afterwards: index, shard ("" untouched)
    stats_reason: str = ""
    search_pipeline: str = ""  # index.search.default_pipeline afterwards ("" not set)
    stats_snapshot: str = ""  # the statistics snapshot the similarity names afterwards ("" none)
    snapshot: dict[str, Any] | None = None  # refresh: what the plugin took

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class WindowTimer:
    """Seconds clients were refused: the close strategy's closed window (close call to the
    end of the open; reopen: its one call and the wait for the primaries), the clone
    strategy's write-blocked one (block to the end of the swap).
    The steps start and stop it; the result reports it."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.seconds = 0.0

    def start(self) -> None:
        self.started = time.monotonic()

    def stop(self) -> None:
        if self.started is not None:
            self.seconds = time.monotonic() - self.started
