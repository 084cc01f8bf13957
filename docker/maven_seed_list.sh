#!/usr/bin/env bash
# Regenerate docker/maven-seed.txt: the Maven artifact folders that the image build's two Maven
# steps read (the plugin build and the engine assembly). scripts/docker_stage.sh copies these
# folders from the host's ~/.m2 into the first build (MAVEN_SEED), which then downloads
# nothing from Maven Central. A stale list only makes that build download what is missing.
#
#   docker/maven_seed_list.sh [ENGINE_VERSION]     (default 2.19.6)
#
# Needs Java 17, Maven and qidf (QIDF, default .venv/bin/qidf as scripts/test.sh makes it).
#
# Replays both steps on the host with a fresh Maven repository whose only source is the
# host's ~/.m2 (a file:// mirror, no network), then lists what landed in it. Run it after a
# change to plugin-java/pom.xml or to the engine's artifacts.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${1:-2.19.6}"
QIDF="${QIDF:-$ROOT/.venv/bin/qidf}"
[ -x "$QIDF" ] || { echo "maven_seed_list.sh: no qidf at $QIDF (run scripts/test.sh, or set QIDF)" >&2; exit 1; }
WORK="$(mktemp -d /tmp/qidf-maven-seed.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/.m2"
cat >"$WORK/.m2/settings.xml" <<SETTINGS
<settings><mirrors><mirror><id>central</id><mirrorOf>*</mirrorOf>
<url>file://$HOME/.m2/repository</url></mirror></mirrors></settings>
SETTINGS
(
  # Maven reads user.home (not $HOME) for settings.xml and its repository
  export MAVEN_OPTS="-Duser.home=$WORK" XDG_CACHE_HOME="$WORK/cache" QIDF_HOME="$WORK/qidf"
  "$ROOT/scripts/build_plugin.sh" "$VERSION" --skip-tests >/dev/null
  "$QIDF" engine fetch --engine "opensearch-$VERSION" >/dev/null
)
{
  echo "# Maven artifact folders the image build reads (OpenSearch $VERSION); regenerate with"
  echo "# docker/maven_seed_list.sh. Used by scripts/docker_stage.sh to seed a first build."
  (cd "$WORK/.m2/repository" && find . -type f \( -name '*.pom' -o -name '*.jar' -o -name '*.zip' \) \
     -printf '%h\n' | sed 's|^\./||' | LC_ALL=C sort -u)
} >"$ROOT/docker/maven-seed.txt"
echo "docker/maven-seed.txt: $(grep -vc '^#' "$ROOT/docker/maven-seed.txt") folders" >&2
