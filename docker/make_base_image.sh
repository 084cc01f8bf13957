#!/usr/bin/env bash
# Make debian:bookworm-slim locally, for machines that reach Debian's packages but no image
# registry. The Dockerfiles pin `debian:bookworm-slim`; a user with Docker Hub gets the
# official image under that tag, and this script puts a local equivalent under the same tag,
# so the Dockerfiles do not change.
#
#   docker/make_base_image.sh [TAG] [MIRROR]
#     TAG     debian:bookworm-slim (default)
#     MIRROR  the Debian mirror (default: the first bookworm mirror in apt's sources, else
#             http://deb.debian.org/debian)
#
# A minbase debootstrap (apt, dpkg, bash, coreutils) without apt's package lists, imported
# with `docker import`. Needs root, debootstrap and a running Docker engine. About 45 s.
set -euo pipefail

TAG="${1:-debian:bookworm-slim}"
MIRROR="${2:-}"

apt_mirror() { # the first http(s) mirror apt uses for bookworm's main suite
  local f
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sources)
        awk 'BEGIN{RS=""} /Suites:[^\n]*bookworm( |\n|$)/ && /Components:[^\n]*main/ {
               match($0, /URIs: *[^ \n]+/); if (RSTART) { u = substr($0, RSTART, RLENGTH);
               sub(/URIs: */, "", u); if (u ~ /\/debian\/?$/) { print u; exit } } }' "$f" ;;
      *)
        awk '$1 == "deb" && $3 == "bookworm" && $2 ~ /\/debian\/?$/ { print $2; exit }' "$f" ;;
    esac
  done | head -n 1
}

if [ -z "$MIRROR" ]; then MIRROR="$(apt_mirror)"; fi
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
command -v debootstrap >/dev/null || { echo "make_base_image.sh: debootstrap not found (apt-get install debootstrap)" >&2; exit 1; }

ROOTFS="$(mktemp -d /tmp/qidf-rootfs.XXXXXX)"
trap 'rm -rf "$ROOTFS"' EXIT
echo "make_base_image.sh: debootstrap bookworm from $MIRROR" >&2
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 || {
  tail -n 20 "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"

# The same apt sources as the official image (bookworm, its updates and security), over the
# mirror that answered here.
rm -f "$ROOTFS/etc/apt/sources.list"
cat >"$ROOTFS/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $MIRROR
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${MIRROR%/debian*}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin "$ROOTFS"/var/cache/apt/archives/*.deb \
  "$ROOTFS"/var/log/* "$ROOTFS"/tmp/*

tar --numeric-owner -C "$ROOTFS" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'CMD ["bash"]' \
  -m "debootstrap --variant=minbase bookworm $MIRROR (qidf docker/make_base_image.sh)" \
  - "$TAG" >/dev/null
echo "make_base_image.sh: $TAG $(docker image inspect -f '{{.Size}}' "$TAG" | awk '{printf "%.0f MB", $1/1e6}')" >&2
