"""A private CA and the certificates a secured local node needs, made with ``cryptography``
(no openssl command line needed).

What the OpenSearch security plugin expects, and why each choice:
- keys in unencrypted PKCS#8 PEM ("BEGIN PRIVATE KEY");
- the node certificate serves both ends of the transport layer, so it has both serverAuth
  and clientAuth; its names (``localhost``, ``127.0.0.1`` and any extra) let clients verify
  the host name; the registered ID 1.2.3.4.5.5 is the plugin's default node OID;
- the admin certificate's DN goes in ``plugins.security.authcz.admin_dn`` and must not be a
  node DN; a client certificate (mutual TLS) has clientAuth only;
- DNs are written in RFC 4514 order, which is how the plugin compares them.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from qidf_ctl.errors import missing_extra

NODE_OID = "1.2.3.4.5.5"
ORG = "qidf local"


@dataclass(frozen=True)
class Issued:
    """Paths of one certificate and its key, with its DN and SHA-256 fingerprint."""

    cert: Path
    key: Path
    dn: str
    sha256: str


def _crypto() -> tuple:  # the modules, imported when needed (an optional dependency)
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise missing_extra("a secured local engine (--security)", "security",
                            "cryptography") from None
    return x509, hashes, serialization, rsa, ExtendedKeyUsageOID, NameOID


class CertificateAuthority:
    """A self-signed CA that issues node, admin and client certificates into ``folder``."""

    def __init__(self, folder: Path, name: str = "qidf local CA") -> None:
        x509, hashes, _, rsa, _, _ = _crypto()
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = dt.datetime.now(dt.timezone.utc)
        subject = self._name(name)
        self.cert = (
            x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(self.key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_key_usage(x509, ca=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self.key.public_key()),
                           critical=False)
            .sign(self.key, hashes.SHA256()))
        self.path = folder / "root-ca.pem"
        self._write(self.cert, self.key, self.path, folder / "root-ca-key.pem")

    @staticmethod
    def _name(cn: str):
        x509, _, _, _, _, NameOID = _crypto()
        return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, ORG),
                          x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "qidf"),
                          x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    @staticmethod
    def _write(cert, key, cert_path: Path, key_path: Path) -> None:
        _, _, serialization, _, _, _ = _crypto()
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        key_path.chmod(0o600)

    def issue(self, stem: str, cn: str, *, server: bool = False,
              names: tuple[str, ...] = ()) -> Issued:
        """A certificate for ``cn``; ``server`` adds serverAuth and the host names."""
        x509, hashes, _, rsa, EKU, _ = _crypto()
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = dt.datetime.now(dt.timezone.utc)
        usages = [EKU.CLIENT_AUTH] + ([EKU.SERVER_AUTH] if server else [])
        builder = (
            x509.CertificateBuilder().subject_name(self._name(cn)).issuer_name(self.cert.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=825))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_key_usage(x509, ca=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                self.key.public_key()), critical=False))
        if server:
            alt = [x509.DNSName("localhost"), *(x509.DNSName(n) for n in names),
                   x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                   x509.RegisteredID(x509.ObjectIdentifier(NODE_OID))]
            builder = builder.add_extension(x509.SubjectAlternativeName(alt), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        issued = Issued(self.folder / f"{stem}.pem", self.folder / f"{stem}-key.pem",
                        cert.subject.rfc4514_string(), cert.fingerprint(hashes.SHA256()).hex())
        self._write(cert, key, issued.cert, issued.key)
        return issued


def _key_usage(x509, *, ca: bool):
    return x509.KeyUsage(digital_signature=True, key_encipherment=not ca,
                         key_cert_sign=ca, crl_sign=ca, content_commitment=False,
                         data_encipherment=False, key_agreement=False, encipher_only=False,
                         decipher_only=False)
