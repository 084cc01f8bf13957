"""Exceptions the library raises, and the exit code the CLI gives each.

Exit codes are part of the interface (CI branches on them), so they live here, once:

====  =====================================================================================
code  meaning
====  =====================================================================================
0     success (``check``: everything in sync)
1     the operation failed for another reason (the message says which)
2     usage: a bad option or argument, refused before anything changed
3     not in the asked-for state: ``check`` found drift; ``engine status`` found no node
4     authentication or authorisation failed (HTTP 401/403), or TLS trust failed (the
      server's certificate is not trusted or pinned, or it refused the client certificate)
5     not found: the index, alias, field or file named does not exist
6     conflict: the index's state forbids the operation now (closed, locked by another
      qidf run, a data stream, blocked, an interrupted operation to recover first)
7     unavailable, worth retrying: connection refused or reset, timeout, DNS, HTTP 429/5xx
130   interrupted (Ctrl-C or SIGTERM) after the current step was finished or undone
====  =====================================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DRIFT = 3
EXIT_AUTH = 4
EXIT_NOT_FOUND = 5
EXIT_CONFLICT = 6
EXIT_UNAVAILABLE = 7
EXIT_INTERRUPTED = 130

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "success (check: in sync)",
    EXIT_FAILED: "the operation failed",
    EXIT_USAGE: "bad option or argument; nothing changed",
    EXIT_DRIFT: "not in the asked-for state (check: drift; engine status: not running)",
    EXIT_AUTH: "authentication or authorisation failed (401/403, TLS trust)",
    EXIT_NOT_FOUND: "index, alias, field or file not found",
    EXIT_CONFLICT: "the index's state forbids it now (closed, locked, data stream, blocked, "
                   "interrupted operation)",
    EXIT_UNAVAILABLE: "cluster unreachable, timeout or 429/5xx: retry later",
    EXIT_INTERRUPTED: "interrupted",
}


class QidfError(Exception):
    """Something the user can fix: the message names what is wrong and what to do."""

    exit_code = EXIT_FAILED


class UsageError(QidfError):
    """Bad input, refused before anything changed."""

    exit_code = EXIT_USAGE


class NotFoundError(QidfError):
    """The index, alias, field or file named does not exist."""

    exit_code = EXIT_NOT_FOUND


class ConflictError(QidfError):
    """The index's current state forbids the operation (closed, locked, data stream...)."""

    exit_code = EXIT_CONFLICT


class MissingExtraError(QidfError):
    """An optional dependency is not installed; the message names the extra to install."""

    exit_code = EXIT_FAILED


def missing_extra(feature: str, extra: str | None, package: str) -> MissingExtraError:
    """The one-line error for a dependency that is not installed; ``extra`` names the qidf
    extra that brings it (None: a core dependency, missing from a broken install)."""
    how = f"pip install 'qidf[{extra}]'" if extra else f"pip install {package} (or reinstall qidf)"
    return MissingExtraError(
        f"{feature} needs the Python package {package!r}, which is not installed: {how}"
    )


# Error types (the engine's, or qidf's own for failures below HTTP) that fix the exit code
# whatever the HTTP status says.
AUTH_TYPES = frozenset({"tls_error", "security_exception", "aws_signature"})
CONFLICT_TYPES = frozenset({"cluster_block_exception", "index_closed_exception"})
# Refusals an engine answers with HTTP 500 although retrying cannot change them: the request
# itself does not fit the index (an artificial document its mapping rejects, a bad query).
DETERMINISTIC_TYPES = frozenset({
    "mapper_parsing_exception", "strict_dynamic_mapping_exception", "illegal_argument_exception",
    "parsing_exception", "x_content_parse_exception", "query_shard_exception",
    "search_parse_exception", "script_exception", "document_parsing_exception",
})


class ClusterError(QidfError):
    """The cluster refused or could not be reached; the exit code follows the HTTP status."""

    def __init__(self, message: str, *, status: int | None = None, error_type: str = "",
                 retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.retryable = retryable

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        if self.error_type in CONFLICT_TYPES:  # e.g. a write block answers 403
            return EXIT_CONFLICT
        if self.error_type in AUTH_TYPES:
            return EXIT_AUTH
        if self.error_type in DETERMINISTIC_TYPES and not self.retryable:
            return EXIT_FAILED  # an engine's 500 for what no retry can change
        if self.retryable or self.status in (429, 502, 503, 504) or (
                self.status is not None and self.status >= 500):
            return EXIT_UNAVAILABLE
        if self.status in (401, 403):
            return EXIT_AUTH
        if self.status == 404:
            return EXIT_NOT_FOUND
        if self.status == 409:
            return EXIT_CONFLICT
        return EXIT_FAILED


class Interrupted(QidfError):
    """SIGINT or SIGTERM arrived during a change; the operation was finished or rolled back
    (the message says which) before exiting."""

    exit_code = EXIT_INTERRUPTED


class EngineError(QidfError):
    """The local engine could not be fetched, started or stopped."""
