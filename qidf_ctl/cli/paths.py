"""Output files checked before any work (``qidf_ctl.outfile``: a folder, a FIFO, a device, a
name too long, a place qidf cannot write are refused at the start, not after a sweep has
measured for minutes or after the index was changed)."""

from __future__ import annotations

from pathlib import Path

from qidf_ctl import outfile


def check_writable(path: str | Path, option: str, folders: bool = False) -> Path:
    """``path`` as given to ``option``, once it is known that it can be written
    (``folders``: its writer creates missing folders)."""
    return outfile.check(path, option, folders)
