"""What apply or revert did, for humans and for ``--json``."""

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
    closed_seconds: float = 0.0
    dry_run: bool = False
    mode_reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)
