"""A file the user named for qidf to write (``--trace``, ``--out``, ``--run-out``, ``--plot``,
``--out-dir``), checked before any work: a path qidf cannot write is refused at the start,
not after a sweep measured for minutes or after the index was changed.

What is refused, each as a usage error (exit 2) naming the option and the path:

- a folder; a parent that is not a folder; a parent qidf cannot create;
- a name longer than its file system allows (``NAME_MAX`` of each part, usually 255 bytes;
  ``PATH_MAX`` of the whole), which the OS would refuse with ``ENAMETOOLONG`` deep inside a
  call that did not expect it;
- anything that is not a regular file: a FIFO (opening one to write blocks until a reader
  comes, so a run would hang with no output), a device (``/dev/full`` takes the open and
  fails every write; ``/dev/null`` would drop what was asked for), a socket;
- a file that cannot be opened for appending (permissions, a read-only file system).

The check leaves no trace: a file that did not exist is created and removed again (the one
test that also holds for root and read-only file systems, where permission bits say little),
and missing folders are not created: refused, or (for a writer that makes them) checked as
creatable. ``open_append`` opens the
same way without blocking (``O_NONBLOCK``: a FIFO put there since the check fails at once).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO

from qidf_ctl.errors import UsageError

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO), not a file (a write there waits for a "
                          "reader)"),
          (stat.S_ISCHR, "a device, not a file (/dev/full refuses every write, /dev/null "
                         "drops them)"),
          (stat.S_ISBLK, "a block device, not a file"), (stat.S_ISSOCK, "a socket, not a file"))


def _limit(folder: Path, name: str, default: int) -> int:
    try:
        return int(os.pathconf(folder, name))
    except (OSError, ValueError):
        return default


def _nearest_existing(path: Path) -> Path:
    for parent in path.parents:
        try:
            if parent.exists():
                return parent
        except OSError:
            continue
    return Path(path.anchor or ".")


def _check_names(target: Path, option: str, shown: str) -> None:
    """Each part of ``target`` within its file system's ``NAME_MAX``, the whole within
    ``PATH_MAX``; before any call that would fail with ``ENAMETOOLONG``."""
    absolute = Path(os.path.abspath(target))
    base = _nearest_existing(absolute)
    name_max = _limit(base, "PC_NAME_MAX", 255)
    for part in absolute.parts[1:]:
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > name_max:
            raise UsageError(f"{option} {shown[:80]}...: a name in it is {size} bytes long; "
                             f"this file system allows at most {name_max}: give a shorter name")
    path_max = _limit(base, "PC_PATH_MAX", 4096)
    if len(str(absolute).encode("utf-8", "surrogateescape")) >= path_max:
        raise UsageError(f"{option} {shown[:80]}...: the path is longer than this file "
                         f"system allows ({path_max} bytes): give a shorter one")


def _kind(info: os.stat_result) -> str | None:
    for test, what in _KINDS:
        if test(info.st_mode):
            return what
    return None


def check(path: str | Path, option: str, folders: bool = False) -> Path:
    """``path`` as given to ``option``, once it is known that it can be written (see the
    module docstring for what is refused). ``folders``: the writer creates missing folders
    (else a missing folder is refused now, not when the file is written)."""
    shown = str(path)
    target = Path(path).expanduser()
    if not shown.strip():
        raise UsageError(f"{option} is empty: give a file name")
    _check_names(target, option, shown)
    try:
        info: os.stat_result | None = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UsageError(f"{option} {shown}: {exc.strerror or exc}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{option} {shown} is a folder: give a file name")
        kind = _kind(info)
        if kind is not None:
            raise UsageError(f"{option} {shown} is {kind}: give a file name")
    parent = target.parent
    if not parent.exists() and not folders:
        raise UsageError(f"{option} {shown}: the folder {parent} does not exist: create it, "
                         "or give a file in a folder that exists")
    if not parent.exists():
        base = _nearest_existing(target)
        if not base.is_dir() or not os.access(base, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {shown}: cannot create the folder {parent} ({base} is "
                             "not a writable folder)")
        return target
    if not parent.is_dir():
        raise UsageError(f"{option} {shown}: {parent} is not a folder")
    existed = info is not None
    handle = open_append(target, option)
    handle.close()
    if not existed:
        target.unlink(missing_ok=True)
    return target


def open_append(path: Path, option: str) -> IO[str]:
    """``path`` opened to append text (created if missing), never blocking, and refused
    unless it is a regular file."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader
            raise UsageError(f"{option} {path} is {_KINDS[0][1]}: give a file name") from None
        raise UsageError(f"{option}: cannot write {path}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    kind = _kind(info) if not stat.S_ISREG(info.st_mode) else None
    if kind is not None or stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise UsageError(f"{option} {path} is {kind or 'a folder'}: give a file name")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a", encoding="utf-8")
