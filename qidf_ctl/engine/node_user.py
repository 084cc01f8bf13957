"""Who the local engine runs as, and whether that user can reach what the node needs.

OpenSearch and Elasticsearch refuse to run as root, so when qidf runs as root each node runs
as ``nobody`` with nobody's own group and no supplementary groups. That last part matters:
a child that keeps root's group (what ``subprocess`` does with ``user=`` alone) is judged by
the *group* bits of every root-owned folder, so a folder ``mktemp -d`` made (``drwx------``,
made ``drwx---r-x`` by ``assemble.make_readable``) stayed closed to it and the start ended in
``PermissionError`` on the launcher.

Before a node starts, ``check`` walks every folder on the way to the node's home, its
distribution's launcher and the JVM, with the node user's uid and groups against each
folder's mode, and refuses with one line naming the first folder it cannot enter and what to
change. Mode bits only: an ACL that grants more is not seen (it would only make the check
stricter than the kernel, never let a start through that then fails).

qidf changes permissions inside the qidf home only (the home, and folders it creates on the
way to it). A folder above the home that the node user cannot enter (``mktemp -d``'s 0700,
root's own home folder) is never widened: that would open it, and whatever else it holds, to
every user. The start is refused before anything is written (exit 2), with the one
``chmod`` that would let it through and the other way out (another QIDF_HOME).
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qidf_ctl.engine.assemble import make_readable
from qidf_ctl.engine.config import RUN_AS_WHEN_ROOT
from qidf_ctl.errors import EngineError, QidfError, UsageError

READ, WRITE, EXECUTE = 4, 2, 1


@dataclass(frozen=True)
class NodeUser:
    name: str
    uid: int
    gid: int
    groups: frozenset[int]

    def popen_args(self) -> dict[str, Any]:
        """``subprocess.Popen`` keywords: this user, its own group, no other groups."""
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


def node_user() -> NodeUser | None:
    """The user nodes run as: ``nobody`` when qidf runs as root; None (qidf's own user)
    otherwise."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam(RUN_AS_WHEN_ROOT)
    except KeyError:
        raise EngineError(f"qidf runs as root and starts the engine as {RUN_AS_WHEN_ROOT!r} "
                          "(the engines refuse root), but this system has no such user: "
                          f"create it, or run qidf as an unprivileged user") from None
    return NodeUser(entry.pw_name, entry.pw_uid, entry.pw_gid, frozenset({entry.pw_gid}))


def _allowed(info: os.stat_result, user: NodeUser, want: int) -> bool:
    if info.st_uid == user.uid:
        bits = info.st_mode >> 6
    elif info.st_gid in user.groups:
        bits = info.st_mode >> 3
    else:
        bits = info.st_mode
    return (bits & want) == want


def _owner(info: os.stat_result) -> str:
    try:
        user = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        user = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    return f"{user}:{group}"


def blocked(path: Path, user: NodeUser, want: int = EXECUTE) -> str | None:
    """Why ``user`` cannot reach ``path`` (with ``want`` on ``path`` itself), or None. Folders
    that do not exist yet are skipped: qidf creates them, as root, readable by all."""
    path = Path(os.path.abspath(path))
    for step in [*reversed(path.parents), path]:
        try:
            info = step.stat()
        except FileNotFoundError:
            return None
        except OSError:
            continue
        folder = stat.S_ISDIR(info.st_mode)
        need = want if step == path else EXECUTE
        if not _allowed(info, user, need):
            what = "enter" if folder else ("run" if need & EXECUTE else "read")
            fix = "o+x" if folder else ("o+rx" if need & EXECUTE else "o+r")
            return (f"cannot {what} {step} ({stat.filemode(info.st_mode)} {_owner(info)}): "
                    f"chmod {fix} {step}")
    return None


Need = tuple[Path, int, str]  # a path, the access it needs, what it is ("the qidf home")


def check(user: NodeUser | None, needs: list[Need], otherwise: str,
          error: type[QidfError] = EngineError) -> None:
    """Refuse to start when ``user`` cannot reach one of ``needs``: one line naming the
    folder, what to change, and ``otherwise`` (the other way out)."""
    if user is None:
        return
    for path, want, purpose in needs:
        reason = blocked(path, user, want)
        if reason:
            raise error(
                f"qidf runs as root, so the engine runs as {user.name!r} (the engines refuse "
                f"root), and {user.name} {reason} (the way to {purpose}); or {otherwise}")


HOME_FIX = "set QIDF_HOME to a folder nobody can reach (the default for root: /var/lib/qidf)"
JAVA_FIX = "set QIDF_JAVA_HOME to a JDK nobody can run (e.g. one under /usr/lib/jvm)"


def _missing_on_the_way(root: Path) -> list[Path]:
    """The folders ``mkdir -p root`` would create, outermost first (qidf's, once made)."""
    path = Path(os.path.abspath(root))
    return [p for p in [*reversed(path.parents), path] if not p.exists()]


def for_home(root: Path) -> NodeUser | None:
    """The node user, once it can reach the qidf home ``root``: checked before anything is
    fetched or written. The folders above the home that exist are only checked (a usage
    error naming the chmod when one is closed); the home, and the folders qidf creates on
    the way to it, are made traversable."""
    user = node_user()
    if user is not None:
        needs: list[Need] = [(root, EXECUTE, "the qidf home, QIDF_HOME")]
        made = _missing_on_the_way(root)
        top = made[0] if made else Path(os.path.abspath(root))
        check(user, [(top.parent, EXECUTE, "the qidf home, QIDF_HOME")], HOME_FIX,
              UsageError)  # nothing is created or changed before this
        root.mkdir(parents=True, exist_ok=True)
        make_readable(root, home=top)
        check(user, needs, HOME_FIX, UsageError)
    return user


def check_java(user: NodeUser | None, java_home: Path) -> None:
    check(user, [(java_home / "bin" / "java", READ | EXECUTE, f"the JVM in {java_home}")],
          JAVA_FIX, UsageError)


def ready_to_launch(user: NodeUser | None, root: Path, node: Path, launcher: Path) -> None:
    """Right before the JVM starts: the node folder is the node user's, and it can run the
    launcher of its distribution copy."""
    if user is None:
        return
    make_readable(root)  # the home itself, never above it
    chown_node(node, user)
    check(user, [(launcher, READ | EXECUTE, "the engine's launcher")], HOME_FIX)


def chown_node(node: Path, user: NodeUser | None) -> None:
    """The node user writes its data, logs and config; the distribution copy stays root's
    (its files are hard links shared with the assembled distribution)."""
    if user is None:
        return
    os.chown(node, user.uid, user.gid)
    for sub in ("data", "logs", "config"):
        for root, dirs, files in os.walk(node / sub):
            os.chown(root, user.uid, user.gid)
            for name in dirs + files:
                os.chown(os.path.join(root, name), user.uid, user.gid, follow_symlinks=False)
