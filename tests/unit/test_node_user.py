"""The user the local engine runs as when qidf runs as root, and the one-line refusal when it
cannot reach the qidf home, the JVM or the launcher (qidf_ctl/engine/node_user.py)."""

from __future__ import annotations

import os
import stat

import pytest

from qidf_ctl.engine import node_user
from qidf_ctl.engine.node_user import EXECUTE, READ, NodeUser
from qidf_ctl.errors import EngineError, UsageError

NOBODY = NodeUser("nobody", 65534, 65534, frozenset({65534}))


@pytest.fixture
def tmp_path():
    """A folder every user can reach (pytest's own lives in a 0700 folder of root's)."""
    import shutil
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="qidf-node-user-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    for root, dirs, _ in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    shutil.rmtree(path, ignore_errors=True)


def test_the_node_runs_with_its_own_group_and_no_other():
    """With root's group kept, a root-owned 0705 folder (mktemp -d's, made traversable) was
    judged by its group bits (0) and stayed closed."""
    assert NOBODY.popen_args() == {"user": 65534, "group": 65534, "extra_groups": []}


def test_blocked_names_the_first_folder_and_the_chmod(tmp_path):
    outer = tmp_path / "outer"
    inner = outer / "qidf"
    inner.mkdir(parents=True)
    os.chmod(tmp_path, 0o755)
    os.chmod(outer, 0o700)
    reason = node_user.blocked(inner, NOBODY)
    assert reason is not None and f"cannot enter {outer} (drwx------" in reason
    assert f"chmod o+x {outer}" in reason
    os.chmod(outer, 0o701)
    assert node_user.blocked(inner, NOBODY) is None
    os.chmod(outer, 0o770)  # the group bits do not help a user outside the group
    assert node_user.blocked(inner, NOBODY) is not None


def test_a_launcher_it_cannot_run(tmp_path):
    os.chmod(tmp_path, 0o755)
    launcher = tmp_path / "opensearch"
    launcher.write_text("#!/bin/sh\n")
    launcher.chmod(0o700)
    reason = node_user.blocked(launcher, NOBODY, READ | EXECUTE)
    assert reason is not None and "cannot run" in reason and "chmod o+rx" in reason
    launcher.chmod(0o755)
    assert node_user.blocked(launcher, NOBODY, READ | EXECUTE) is None


def test_folders_not_made_yet_are_not_checked(tmp_path):
    os.chmod(tmp_path, 0o755)
    assert node_user.blocked(tmp_path / "a" / "b", NOBODY, EXECUTE) is None


def test_the_refusal_is_one_line_with_the_other_way_out(tmp_path):
    os.chmod(tmp_path, 0o700)
    with pytest.raises(EngineError) as caught:
        node_user.check(NOBODY, [(tmp_path / "qidf", EXECUTE, "the qidf home, QIDF_HOME")],
                        node_user.HOME_FIX)
    message = str(caught.value)
    assert "\n" not in message and "runs as 'nobody'" in message
    assert f"chmod o+x {tmp_path}" in message and "QIDF_HOME" in message


def test_not_root_checks_nothing(tmp_path):
    node_user.check(None, [(tmp_path, EXECUTE, "x")], "y")


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: qidf runs the node as nobody")
def test_a_closed_folder_above_the_home_is_refused_and_left_as_it_is(tmp_path):
    """Issue 33: a home under a 0700 folder of root's (``mktemp -d``'s, or root's own home
    folder) widened that folder to 0705 and so opened it to everyone. Now: one line naming
    the folder and the chmod, exit 2, and nothing changed or created."""
    outer = tmp_path / "t"
    home = outer / "a" / "qidf"
    outer.mkdir()
    os.chmod(outer, 0o700)
    with pytest.raises(UsageError) as caught:
        node_user.for_home(home)
    message = str(caught.value)
    assert "\n" not in message and f"cannot enter {outer} (drwx------" in message
    assert f"chmod o+x {outer}" in message and "QIDF_HOME" in message
    assert caught.value.exit_code == 2
    assert stat.S_IMODE(outer.stat().st_mode) == 0o700 and not (outer / "a").exists()
    os.chmod(outer, 0o701)  # what the line says to run (or another QIDF_HOME)
    assert node_user.for_home(home) is not None
    assert stat.S_IMODE(outer.stat().st_mode) == 0o701  # still only what the user set
    assert node_user.blocked(home, node_user.node_user()) is None  # qidf's own: traversable


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: qidf runs the node as nobody")
def test_a_home_mktemp_made_is_qidf_s_to_open(tmp_path):
    """QIDF_HOME=$(mktemp -d): the home itself is qidf's (0700 -> 0705); nothing above it."""
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o700)
    before = stat.S_IMODE(tmp_path.stat().st_mode)
    assert node_user.for_home(home) is not None
    assert stat.S_IMODE(home.stat().st_mode) == 0o705
    assert stat.S_IMODE(tmp_path.stat().st_mode) == before


@pytest.mark.skipif(os.geteuid() != 0, reason="root only: qidf runs the node as nobody")
def test_a_folder_another_user_owns_is_only_checked(tmp_path):
    other = tmp_path / "theirs"
    other.mkdir()
    os.chown(other, 1, 1)
    os.chmod(other, 0o700)
    with pytest.raises(UsageError, match=f"cannot enter {other}"):
        node_user.for_home(other / "qidf")
    assert not (other / "qidf").exists()  # refused before anything was created


def test_make_readable_stays_inside_the_home(tmp_path):
    from qidf_ctl.engine.assemble import make_readable

    home = tmp_path / "home"
    (home / "dist").mkdir(parents=True)
    for folder in (tmp_path, home, home / "dist"):
        os.chmod(folder, 0o700)
    make_readable(home / "dist", home=home)
    assert stat.S_IMODE((home / "dist").stat().st_mode) == 0o705
    assert stat.S_IMODE(home.stat().st_mode) == 0o705
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o700  # above the home: never
