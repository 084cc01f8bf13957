"""What apply, revert or recover did, for humans and for ``--json``."""

from __future__ import annotations

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

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
