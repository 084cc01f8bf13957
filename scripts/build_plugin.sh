#!/usr/bin/env bash
# Build the qlog_bm25 similarity plugin zip for one engine version and print the zip's path.
#
#   scripts/build_plugin.sh [ENGINE_VERSION] [--skip-tests]
#     2.19.6 (default) | 2.x.y    OpenSearch 2.x, Java 17
#     3.x.y                       OpenSearch 3.x, Java 21+
#     es-8.x.y                    Elasticsearch 8.x, Java 17
#     es-9.x.y                    Elasticsearch 9.x, Java 21+
#
# A plugin loads only into the exact engine version it was built for. The last line on stdout is
# the zip's absolute path; Maven's output goes to stderr. Maven runs offline when everything is
# already in ~/.m2 and goes online otherwise (the first build downloads the engine's jars).
# JAVA_HOME is chosen per engine; override with QIDF_JAVA17_HOME / QIDF_JAVA21_HOME.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLUGIN_DIR="$ROOT/plugin-java"

VERSION="2.19.6"
SKIP_TESTS=0
for arg in "$@"; do
  case "$arg" in
    --skip-tests) SKIP_TESTS=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) VERSION="$arg" ;;
  esac
done

pick_java() { # first existing JDK among the arguments
  for d in "$@"; do
    if [ -n "$d" ] && [ -x "$d/bin/javac" ]; then echo "$d"; return 0; fi
  done
  return 1
}
JAVA17="$(pick_java "${QIDF_JAVA17_HOME:-}" /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64 /usr/lib/jvm/temurin-17-jdk-amd64 || true)"
JAVA21="$(pick_java "${QIDF_JAVA21_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64 /usr/lib/jvm/java-21-openjdk-amd64 /usr/lib/jvm/java-25-openjdk-amd64 || true)"

case "$VERSION" in
  es-8.*)  PROFILE=es8; ENGINE=elasticsearch; ENGINE_VERSION="${VERSION#es-}"; JH="$JAVA17" ;;
  es-9.*)  PROFILE=es9; ENGINE=elasticsearch; ENGINE_VERSION="${VERSION#es-}"; JH="$JAVA21" ;;
  2.*)     PROFILE=os2; ENGINE=opensearch;    ENGINE_VERSION="$VERSION";       JH="$JAVA17" ;;
  3.*)     PROFILE=os3; ENGINE=opensearch;    ENGINE_VERSION="$VERSION";       JH="$JAVA21" ;;
  *) echo "build_plugin.sh: unsupported engine version '$VERSION' (want 2.x.y, 3.x.y, es-8.x.y or es-9.x.y)" >&2; exit 2 ;;
esac
if [ -z "$JH" ]; then
  echo "build_plugin.sh: no suitable JDK found for $VERSION (Java 17 for OpenSearch 2 / Elasticsearch 8, 21+ for OpenSearch 3)" >&2
  exit 3
fi

MVN_ARGS=(-B -q -Dstyle.color=never -f "$PLUGIN_DIR/pom.xml" -P "$PROFILE" "-Dengine.version=$ENGINE_VERSION")
if [ "$SKIP_TESTS" = 1 ]; then MVN_ARGS+=(-DskipTests); fi

echo "build_plugin.sh: $ENGINE $ENGINE_VERSION (profile $PROFILE, JAVA_HOME=$JH)" >&2
export JAVA_HOME="$JH"
export PATH="$JH/bin:$PATH"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
if ! mvn -o "${MVN_ARGS[@]}" package >"$LOG" 2>&1; then
  if grep -q "offline mode" "$LOG"; then
    echo "build_plugin.sh: not everything is in ~/.m2 yet, building online" >&2
    mvn "${MVN_ARGS[@]}" package >&2
  else
    cat "$LOG" >&2
    echo "build_plugin.sh: build failed" >&2
    exit 1
  fi
else
  cat "$LOG" >&2
fi

ZIP="$(ls -t "$PLUGIN_DIR/target/$ENGINE-$ENGINE_VERSION"/qidf-qlog-similarity-*-"$ENGINE-$ENGINE_VERSION".zip 2>/dev/null | head -n 1 || true)"
if [ -z "$ZIP" ] || [ ! -f "$ZIP" ]; then
  echo "build_plugin.sh: no plugin zip in $PLUGIN_DIR/target/$ENGINE-$ENGINE_VERSION" >&2
  exit 1
fi
echo "$ZIP"
