"""A lease per index: two qidf runs never change the same index at once.

The lease is a document created with ``op_type=create`` in qidf's state index, so the engine
lets exactly one run create it. It names its owner (host, pid, run id, command) and expires;
the owner renews it at every step and releases it, conditionally on its own version, in a
``finally``. A lease whose owner is gone (expired, or a dead pid on this same host) is
stale: the next run breaks it with a warning, and ``qidf recover --force`` breaks a live-
looking one when a person knows better.
"""

from __future__ import annotations

import getpass
import os
import socket
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from qidf_ctl import __version__
from qidf_ctl.cluster.names import state_doc_id
from qidf_ctl.errors import ConflictError
from qidf_ctl.install.store import Doc, StaleWrite, StateStore
from qidf_ctl.progress import Progress, quiet

DEFAULT_TTL_S = 300.0
TTL_ENV = "QIDF_LEASE_TTL"  # seconds; for tests and very slow clusters


class LeaseHeld(ConflictError):
    """Another qidf run holds the lease of this index (exit 6); ``holder`` names it."""

    def __init__(self, message: str, holder: Owner) -> None:
        super().__init__(message)
        self.holder = holder


class LeaseLost(ConflictError):
    """This run's lease was broken (``recover --force``) or expired and was taken over."""


def new_run_id() -> str:
    """8 hex digits: short enough for index names, random enough not to collide."""
    return uuid.uuid4().hex[:8]


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time in clock ticks since boot) of a live process; None when there is
    no such process (or no /proc). The start time tells a reused pid apart."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], fields[19]
    except (OSError, IndexError):
        return None


def _pid_start(pid: int) -> str | None:
    stat = _proc_stat(pid)
    return stat[1] if stat else None


def _command_line(argv: list[str]) -> str:
    """What the holder runs, for a person to recognise it: the program, the subcommand and
    its first argument only. Options are left out: they may carry a password or API key,
    and this text is stored in the cluster and printed to whoever finds the lease."""
    program = os.path.basename(argv[0]) if argv else "python"
    words = [w for w in argv[1:3] if not w.startswith("-")]
    if program in ("__main__.py", "qidf") or program.startswith("python"):
        program = "qidf"
    return " ".join([program, *words])[:300]


@dataclass(frozen=True)
class Owner:
    """Who holds a lease: enough for a person to find the process."""

    run_id: str
    host: str
    pid: int
    pid_start: str | None
    user: str
    command: str
    version: str = __version__

    @classmethod
    def current(cls, run_id: str | None = None, command: str | None = None) -> Owner:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = str(os.getuid())
        cmd = command or _command_line(sys.argv)
        return cls(run_id or new_run_id(), socket.gethostname(), os.getpid(),
                   _pid_start(os.getpid()), user, cmd)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Owner:
        return cls(str(data.get("run_id", "?")), str(data.get("host", "?")),
                   int(data.get("pid", 0)), data.get("pid_start"), str(data.get("user", "?")),
                   str(data.get("command", "?")), str(data.get("version", "?")))

    def describe(self) -> str:
        return (f"run {self.run_id} ({self.command!r}, pid {self.pid} on {self.host}, "
                f"user {self.user})")

    def is_dead_here(self) -> bool:
        """True when this owner ran on this host and its process is gone (or a zombie, or
        the pid now belongs to a process started later)."""
        if self.host != socket.gethostname():
            return False
        if self.pid <= 0:
            return True
        stat = _proc_stat(self.pid)
        if stat is not None:
            state, start = stat
            return state == "Z" or (self.pid_start is not None and start != self.pid_start)
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")


@dataclass
class Lease:
    key: str
    owner: Owner
    expires_at: float
    doc: Doc
    span: float = DEFAULT_TTL_S

    def due_for_renewal(self) -> bool:
        """A third of the lease's time is used up: renewing now keeps a margin."""
        return self.expires_at - time.time() < self.span * 2 / 3

    def source(self) -> dict[str, Any]:
        return {"kind": "lease", "key": self.key, "run_id": self.owner.run_id,
                "expires_at": self.expires_at, "body": {"owner": asdict(self.owner),
                                                        "expires": _when(self.expires_at)}}

    @classmethod
    def from_doc(cls, doc: Doc) -> Lease:
        src = doc.source
        return cls(str(src.get("key")), Owner.from_dict(src.get("body", {}).get("owner", {})),
                   float(src.get("expires_at", 0)), doc)

    def stale_reason(self, now: float | None = None) -> str | None:
        now = time.time() if now is None else now
        if self.expires_at < now:
            return f"it expired at {_when(self.expires_at)}"
        if self.owner.is_dead_here():
            return f"process {self.owner.pid} on {self.owner.host} is gone"
        return None


def ttl() -> float:
    try:
        return float(os.environ.get(TTL_ENV, DEFAULT_TTL_S))
    except ValueError:
        return DEFAULT_TTL_S


def lease_id(key: str) -> str:
    return state_doc_id("lease", key)


def current(store: StateStore, key: str) -> Lease | None:
    doc = store.get(lease_id(key))
    return Lease.from_doc(doc) if doc else None


def acquire(store: StateStore, key: str, owner: Owner, *, force: bool = False,
            warn: Progress = quiet, ttl_s: float | None = None) -> Lease:
    """Take the lease of ``key`` or raise LeaseHeld naming its holder.

    A stale lease (or any lease with ``force``) is deleted conditionally on the version read,
    with a warning, and the create is tried again: of two runs breaking the same stale lease,
    one wins the create.
    """
    span = ttl() if ttl_s is None else ttl_s
    for _ in range(5):
        lease = Lease(key, owner, time.time() + span, Doc(lease_id(key), {}, 0, 0), span)
        try:
            lease.doc = store.create(lease_id(key), lease.source())
            return lease
        except StaleWrite:
            pass
        held = current(store, key)
        if held is None:
            continue  # released in between: try again
        if held.owner.run_id == owner.run_id:
            return held
        reason = held.stale_reason()
        if reason is None and not force:
            raise LeaseHeld(
                f"{key} is being changed by another qidf run: {held.owner.describe()}, lease "
                f"until {_when(held.expires_at)}; wait for it to finish (if that run is dead, "
                f"`qidf recover {key} --force` breaks the lease)", held.owner)
        why = reason or "--force was given"
        warn(f"breaking the lease of {held.owner.describe()} on {key}: {why}")
        store.delete(held.doc)
    raise ConflictError(f"could not take the lease of {key}: it keeps changing hands; retry")


def renew(store: StateStore, lease: Lease, ttl_s: float | None = None) -> Lease:
    """Extend the lease; LeaseLost when someone broke or took it meanwhile."""
    lease.span = ttl() if ttl_s is None else ttl_s
    lease.expires_at = time.time() + lease.span
    try:
        lease.doc = store.replace(lease.doc, lease.source())
    except StaleWrite:
        raise LeaseLost(
            f"the lease of {lease.key} was broken by another run (qidf recover --force?) "
            "while this one held it; stopping before the next change") from None
    return lease


def release(store: StateStore, lease: Lease) -> bool:
    """Give the lease back; a lease someone else broke meanwhile is left alone."""
    return store.delete(lease.doc)
