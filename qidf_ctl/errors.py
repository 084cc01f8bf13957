"""Exceptions the library raises; the CLI turns each into one line and a non-zero exit."""

from __future__ import annotations


class QidfError(Exception):
    """Something the user can fix: the message names what is wrong and what to do."""

    exit_code = 1


class UsageError(QidfError):
    """Bad input, refused before anything touched a cluster."""

    exit_code = 2


class ClusterError(QidfError):
    """The cluster refused or could not be reached."""

    def __init__(self, message: str, *, status: int | None = None, error_type: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type


class EngineError(QidfError):
    """The local engine could not be fetched, started or stopped."""
