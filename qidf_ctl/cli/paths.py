"""Output files checked before any work: a path qidf cannot write is refused at the start,
not after a sweep has measured for minutes or after the index was changed.

The check leaves no trace: a file that did not exist is created and removed again (the one
test that also holds for root and read-only file systems, where permission bits say little),
and missing folders are not created, only checked as creatable.
"""

from __future__ import annotations

import os
from pathlib import Path

from qidf_ctl.errors import UsageError


def _nearest_existing(path: Path) -> Path:
    for parent in path.parents:
        if parent.exists():
            return parent
    return Path(path.anchor or ".")


def check_writable(path: str | Path, option: str) -> Path:
    """``path`` as given to ``option``, once it is known that it can be written."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise UsageError(f"{option} {path} is a folder: give a file name")
    parent = target.parent
    if not parent.exists():
        base = _nearest_existing(target)
        if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {path}: cannot create the folder {parent} ({base} is "
                             "not a writable folder)")
        return target
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a folder")
    existed = target.exists()
    try:
        with open(target, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    if not existed:
        target.unlink(missing_ok=True)
    return target
