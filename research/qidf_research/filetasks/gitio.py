"""The git CLI, run on a repository without a work tree (a bare snapshot): every step of the
file tasks reads git through here, so a failing git call says which command and why."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path


class GitError(RuntimeError):
    """A git command that failed, with its stderr."""


def git(repo: Path, *args: str, input_: bytes | None = None) -> bytes:
    """Run ``git -C repo ARGS`` and return stdout; raise GitError with stderr on failure."""
    proc = subprocess.run(["git", "-C", str(repo), *args], input=input_,
                          capture_output=True, check=False)
    if proc.returncode:
        raise GitError(f"git {' '.join(args[:3])} in {repo} failed: "
                       f"{proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout


def rev_parse(repo: Path, rev: str) -> str:
    return git(repo, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()


def cat_file(repo: Path, objects: list[str]) -> Iterator[tuple[str, str, bytes]]:
    """(name asked for, object type, content) of each object, through one
    ``git cat-file --batch`` process. Objects that are missing raise GitError."""
    if not objects:
        return
    proc = subprocess.Popen(["git", "-C", str(repo), "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    import threading

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for name in objects:
                proc.stdin.write(name.encode() + b"\n")
        finally:
            proc.stdin.close()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for name in objects:
            header = proc.stdout.readline().rstrip(b"\n").split(b" ")
            if len(header) != 3:
                raise GitError(f"git cat-file: {name} is missing from the repository")
            kind, size = header[1].decode(), int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after each object
            yield name, kind, data
    finally:
        proc.stdout.close()
        proc.wait()
        writer.join()
