"""Credentials never reach output: every message about a URL goes through ``redact``."""

from __future__ import annotations

import re

_USERINFO = re.compile(r"(\w+://)[^/@\s]+@")


def redact(text: str) -> str:
    """Remove user:password@ from every URL in ``text``."""
    return _USERINFO.sub(r"\1", text)
