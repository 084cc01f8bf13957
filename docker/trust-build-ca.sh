#!/bin/sh
# Build stages only: trust the CA bundle given as the optional build secret `ca`, for networks
# that inspect TLS (without it, HTTPS to PyPI and Maven Central fails verification there).
# Without the secret this does nothing: an ordinary build needs no extra CA.
#
#   docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt ...
#
# Adds the bundle's certificates to the stage's system store (update-ca-certificates also
# refreshes Java's cacerts when a JDK is installed) and prints `export PIP_CERT=...` for pip,
# whose own bundle ignores the system store. The final images never contain the bundle: they
# copy only build results out of these stages.
set -eu
SECRET=/run/secrets/ca
[ -s "$SECRET" ] || exit 0
DIR=/usr/local/share/ca-certificates/qidf-build
mkdir -p "$DIR"
# one certificate per file: update-ca-certificates' Java hook reads only the first of a file
awk -v dir="$DIR" '/-----BEGIN CERTIFICATE-----/ { n++; f = sprintf("%s/ca-%03d.crt", dir, n) }
                   f { print > f } /-----END CERTIFICATE-----/ { close(f); f = "" }' "$SECRET"
update-ca-certificates >/dev/null 2>&1
echo "export PIP_CERT=/etc/ssl/certs/ca-certificates.crt"
