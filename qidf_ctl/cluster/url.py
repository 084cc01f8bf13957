"""A cluster (or proxy) URL, parsed once and strictly by qidf, so that the cluster named is
the one reached, or none.

The clients parse URLs leniently: opensearch-py turns ``http://h:0`` into port 9200 and
``https://h:0`` into 443, and ``urlsplit`` reads everything after a ``#`` in a password as a
fragment. So qidf parses the URL itself and hands the client a canonical URL with an
explicit port that no client rewrites. Credentials in the URL are split out and registered
as secrets before any message can show them; a URL that does not parse is refused without
echoing anything that precedes its last ``@``.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from qidf_ctl.cluster.redact import register_name, register_secret
from qidf_ctl.errors import UsageError

SCHEMES = ("http", "https")
# https has one default port everywhere (curl, both clients); plain http does not (curl: 80,
# opensearch-py: 9200), so an http URL must name its port.
DEFAULT_PORTS = {"https": 443}
MAX_PORT = 65535
# Characters a userinfo cannot hold raw: they end the authority in every URL parser.
_UNSAFE_USERINFO = frozenset(" \t\r\n/?#")
_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9])?")
_PATH = re.compile(r"(?:/[A-Za-z0-9._~%!$&'()*+,;=:@-]*)*")


@dataclass(frozen=True)
class ClusterURL:
    """scheme://host:port[/path], with the credentials it carried kept apart."""

    scheme: str
    host: str  # IPv6 without brackets
    port: int
    path: str = ""  # a proxy prefix such as /es, without a trailing slash
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The canonical URL without credentials, port always explicit."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"


def _refuse(option: str, what: str, shown: str | None) -> UsageError:
    given = f" (got {shown!r})" if shown else ""
    return UsageError(f"{option} {what}{given}")


def _safe_to_show(text: str) -> str | None:
    """What a message may echo of an unparsable URL: nothing up to its last '@'."""
    if "@" in text:
        return None
    return text if len(text) <= 200 else text[:200] + "..."


def _host(authority: str, option: str, shown: str | None) -> tuple[str, str | None]:
    """``host[:port]`` or ``[v6][:port]`` -> (host, port text or None)."""
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise _refuse(option, "has an IPv6 address without its closing ']'", shown)
        host, rest = authority[1:end], authority[end + 1:]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise _refuse(option, "has a bracketed host that is not an IPv6 address",
                          shown) from None
        if rest and not rest.startswith(":"):
            raise _refuse(option, "must look like scheme://[v6-address]:port", shown)
        return host, rest[1:] if rest else None
    host, colon, port = authority.partition(":")
    if not host:
        raise _refuse(option, "names no host: it must look like http(s)://host:port", shown)
    if not _HOST_NAME.fullmatch(host):
        raise _refuse(option, "has a host name with characters a host name cannot hold",
                      shown)
    return host, port if colon else None


def _port(text: str | None, scheme: str, option: str, shown: str | None) -> int:
    if text is None or text == "":
        if scheme in DEFAULT_PORTS:
            return DEFAULT_PORTS[scheme]
        raise _refuse(option, "must name its port (http://host:9200 is the engines' "
                      "default; plain http has no default port qidf could assume)", shown)
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_PORT:
        raise _refuse(option, f"has port {text[:12]!r}: a port is a number from 1 to "
                      f"{MAX_PORT}", shown)
    return int(text)


def _register_userinfo(userinfo: str) -> None:
    """A userinfo with a password is a secret; one without is a user name, or a token put
    where a user name goes: masked as a whole name (``redact.register_name``)."""
    if ":" in userinfo:
        register_secret(userinfo)
    else:
        register_name(userinfo)
        register_name(unquote(userinfo))


def _credentials(userinfo: str, option: str) -> tuple[str | None, str | None]:
    """user:password from the userinfo, percent-decoded, registered as secrets first."""
    raw_user, _, raw_password = userinfo.partition(":")
    _register_userinfo(userinfo)
    register_secret(raw_password)
    password = unquote(raw_password) if raw_password else None
    register_secret(password)
    if _UNSAFE_USERINFO.intersection(userinfo):
        raise UsageError(
            f"{option} carries a user:password part with a space, '/', '?' or '#' in it, "
            "which a URL cannot hold raw: percent-encode them, or give the password with "
            "--password-file (or QIDF_PASSWORD) and the user with --user")
    return (unquote(raw_user) or None), password


def parse_url(text: str, option: str = "--url") -> ClusterURL:
    """``text`` as a cluster or proxy URL; a usage error naming ``option`` otherwise."""
    text = text.strip()
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in SCHEMES:
        # The userinfo may hold secrets: register what might be one before refusing.
        if "@" in text:
            _register_userinfo(text.rpartition("@")[0].rpartition("//")[2])
        raise _refuse(option, "must look like http(s)://host:port", _safe_to_show(text))
    username = password = None
    if "@" in rest:
        userinfo, _, rest = rest.rpartition("@")
        username, password = _credentials(userinfo, option)
    shown = f"{scheme}://{rest}"
    shown = shown if len(shown) <= 200 else shown[:200] + "..."
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "?" in tail or "#" in tail:
        raise _refuse(option, "takes no query string or fragment ('?', '#')", shown)
    if not _PATH.fullmatch(tail):
        raise _refuse(option, "has a path with characters a URL path cannot hold", shown)
    host, port_text = _host(authority, option, shown)
    port = _port(port_text, scheme, option, shown)
    return ClusterURL(scheme, host.lower(), port, tail.rstrip("/"), username, password)
