"""HS256 JSON Web Tokens for the secured node's jwt auth domain (no JWT library needed)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def hs256(key: bytes, claims: dict[str, Any]) -> str:
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64(json.dumps(claims).encode())
    signature = hmac.new(key, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_b64(signature)}"


def token(key: bytes, subject: str, roles: list[str], ttl_s: int = 600) -> str:
    now = int(time.time())
    return hs256(key, {"sub": subject, "roles": roles, "iat": now, "exp": now + ttl_s})
