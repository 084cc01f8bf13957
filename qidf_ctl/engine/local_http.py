"""The few HTTP calls the local engine's own commands make to its nodes (no auth: the local
nodes listen on 127.0.0.1 only, without security).

Plain urllib, so that starting, stopping and restarting nodes never depends on a client
library or on the engine being fully up.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from qidf_ctl.errors import EngineError


def call(url: str, method: str, path: str, body: Any = None, timeout: float = 30) -> Any:
    """One request; the decoded JSON answer. Raises EngineError with the engine's reason."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"{url}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read().decode(errors="replace")[:300]
        raise EngineError(f"{method} {url}{path} failed ({exc.code}): {detail}") from None
    except (OSError, urllib.error.URLError) as exc:
        raise EngineError(f"{method} {url}{path} failed: {exc}") from None
    return json.loads(raw) if raw else {}


def health(url: str, timeout: float = 2) -> dict[str, Any] | None:
    """``_cluster/health`` as this node sees it; None when it does not answer (yet)."""
    try:
        return call(url, "GET", "/_cluster/health", timeout=timeout)  # type: ignore[no-any-return]
    except (EngineError, ValueError):
        return None
