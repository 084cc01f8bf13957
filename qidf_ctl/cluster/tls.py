"""TLS for https clusters: which CA to trust, the client certificate, a pinned fingerprint.

qidf builds the ``ssl.SSLContext`` itself and hands it to either client. That way:
- the CA bundle is exactly ``--ca-certs`` (or the system's trust store), never silently
  replaced by ``REQUESTS_CA_BUNDLE``, which requests-based connections otherwise prefer;
- a client certificate is sent whether or not the server's certificate is verified (the
  opensearch-py urllib3 connection drops it when verification is off);
- pinning (``--ssl-assert-fingerprint``) replaces CA verification, as in elasticsearch-py:
  the fingerprint of the certificate the server presents must match, whoever signed it.
File problems are reported before any connection is tried.
"""

from __future__ import annotations

import re
import ssl

from qidf_ctl import textfile
from qidf_ctl.errors import UsageError

_HEX = re.compile(r"[0-9a-f]{64}")


def normalise_fingerprint(value: str) -> str:
    """A SHA-256 fingerprint as 64 lower-case hex digits (colons and spaces allowed)."""
    text = re.sub(r"[\s:]", "", value).lower()
    if text.startswith("sha256"):
        text = text.removeprefix("sha256").lstrip("=")
    if not _HEX.fullmatch(text):
        raise UsageError(
            "--ssl-assert-fingerprint must be the SHA-256 fingerprint of the server's "
            "certificate (64 hex digits, colons allowed), e.g. from: openssl x509 -noout "
            "-fingerprint -sha256 -in cert.pem")
    return text


def check_file(path: str, option: str) -> str:
    """``path`` if it is a readable file; else one line naming ``option``: not found (exit
    5) when nothing is there, a usage error (exit 2) for a folder or an unreadable file
    (``qidf_ctl.textfile``, as for every file a user names)."""
    p, _ = textfile.check_file(path, "PEM file", option)
    try:
        with p.open("rb") as fh:
            fh.read(1)
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from None
    return str(p)


def ssl_context(ca_certs: str | None = None, client_cert: str | None = None,
                client_key: str | None = None, *, verify: bool = True,
                pinned: bool = False) -> ssl.SSLContext:
    """The context for an https cluster. ``verify=False`` (``--insecure``) or ``pinned``
    (a fingerprint is checked instead) turn CA and host name verification off."""
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    if ca_certs:
        try:
            ctx.load_verify_locations(cafile=ca_certs)
        except (ssl.SSLError, ValueError):
            raise UsageError(f"--ca-certs {ca_certs}: not a PEM certificate bundle") from None
    if client_cert:
        try:
            # An empty password: an encrypted key then fails here instead of OpenSSL
            # prompting on the terminal (which would hang a CI job).
            ctx.load_cert_chain(client_cert, client_key, password="")
        except ssl.SSLError:
            raise UsageError(
                f"--client-cert {client_cert}: not a PEM certificate whose key is in the file "
                "or in --client-key (an encrypted key is not supported)") from None
    if not verify or (pinned and not ca_certs):
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx
