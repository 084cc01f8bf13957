#!/bin/sh
# Build stages only: trust the CA bundle given as the optional build secret `ca`, for networks
# that inspect TLS (without it, HTTPS to PyPI and Maven Central fails verification there).
# Without the secret this does nothing: an ordinary build needs no extra CA.
#
#   docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt ...
#
# Adds the bundle's certificates that the stage does not trust yet to its system store
# (update-ca-certificates also refreshes Java's cacerts when a JRE is installed) and prints
# `export PIP_CERT=...` for pip, whose own bundle ignores the system store. The final images
# never contain them: they copy only build results out of these stages.
set -eu
SECRET=/run/secrets/ca
SYSTEM=/etc/ssl/certs/ca-certificates.crt
[ -s "$SECRET" ] || exit 0
DIR=/usr/local/share/ca-certificates/qidf-build
mkdir -p "$DIR"
# One new certificate per file (update-ca-certificates' Java hook reads only the first of a
# file); certificates already in the system bundle are skipped, which keeps the hook fast.
new="$(awk -v dir="$DIR" '
  /-----BEGIN CERTIFICATE-----/ { body = "" ; inside = 1 }
  inside { body = body $0 "\n" }
  /-----END CERTIFICATE-----/ {
    inside = 0
    if (FILENAME != ARGV[ARGC - 1]) { known[body] = 1 }
    else if (!(body in known)) { n++; f = sprintf("%s/ca-%03d.crt", dir, n); printf "%s", body > f; close(f) }
  }
  END { print n + 0 }' "$SYSTEM" "$SECRET")"
if [ "$new" -gt 0 ]; then update-ca-certificates >/dev/null 2>&1; fi
echo "export PIP_CERT=$SYSTEM"
