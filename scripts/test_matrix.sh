#!/usr/bin/env bash
# The engine matrix and the multi-node tests: the longer run CI makes after the default suite.
#
#   scripts/test_matrix.sh               everything (extra arguments go to every pytest call)
#   QIDF_MATRIX_ENGINES="opensearch-3.8.0" scripts/test_matrix.sh   a part of the matrix
#   QIDF_MATRIX_MULTINODE=0 scripts/test_matrix.sh                  no 3-node cluster
#
# 1. tests/integration/test_matrix.py once per engine (q = 1 parity, apply/revert in both
#    modes, stats, one evaluation), each engine on its own single node with the plugin built
#    for its exact version: OpenSearch 2.19.6 (default), the newest OpenSearch 3.x on a Java
#    21+ JDK (its plugin's Java tests run here too), Elasticsearch 8.19.21 and 9.5.3 (plugin
#    only: their Maven Central distributions have no Painless; 9.5.3 on a Java 21+ JDK, its
#    plugin's Java tests run here, its zip checked against the SHA-256 qidf pins, as Maven
#    Central publishes no checksum for it). Ports QIDF_MATRIX_PORT, +1, +2, +3 (default
#    9270-9273): one folder per engine, never the default suite's node.
# 2. tests/integration/multinode/ on a 3-node OpenSearch 2.19.6 cluster on
#    QIDF_TEST_NODES_PORT..+2 (default 9260-9262; transport ports +100), heap 512m each.
# Every node is started by the tests and stopped at the end.
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python elasticsearch,plot,dev research
cd "$QIDF_ROOT"
started=$(date +%s)
OS3="${QIDF_OS3_VERSION:-3.8.0}"
ES9="${QIDF_ES9_VERSION:-9.5.3}"
ENGINES="${QIDF_MATRIX_ENGINES:-opensearch-2.19.6 opensearch-$OS3 elasticsearch-8.19.21 elasticsearch-$ES9}"
base_port="${QIDF_MATRIX_PORT:-9270}"
k=0
for engine in $ENGINES; do
  version="${engine#*-}"
  case "$engine" in
    elasticsearch-*) build_arg="es-$version" ;;
    *) build_arg="$version" ;;
  esac
  tests=(--skip-tests)  # the default suite already runs the Java tests of 2.19.6 and ES 8.19
  case "$engine" in opensearch-3.*|elasticsearch-9.*) tests=() ;; esac
  echo "== $engine: plugin build${tests[*]:+ (no Java tests)}" >&2
  zip="$(scripts/build_plugin.sh "$build_arg" "${tests[@]}" | tail -n 1)"
  echo "== $engine: matrix tests on port $((base_port + k))" >&2
  t0=$(date +%s)
  QIDF_MATRIX_ENGINE="$engine" QIDF_MATRIX_PLUGIN_ZIP="$zip" \
    QIDF_MATRIX_PORT="$((base_port + k))" \
    "$QIDF_VENV/bin/pytest" -ra -s tests/integration/test_matrix.py "$@"
  echo "== $engine took $(( $(date +%s) - t0 ))s" >&2
  k=$((k + 1))
done
if [ "${QIDF_MATRIX_MULTINODE:-1}" = 1 ]; then
  echo "== 3-node OpenSearch 2.19.6 cluster: multi-node tests" >&2
  t0=$(date +%s)
  QIDF_TEST_MULTINODE=1 \
    QIDF_PLUGIN_ZIP="$(scripts/build_plugin.sh 2.19.6 --skip-tests | tail -n 1)" \
    "$QIDF_VENV/bin/pytest" -ra -s --durations=8 tests/integration/multinode "$@"
  echo "== multi-node tests took $(( $(date +%s) - t0 ))s" >&2
fi
echo "matrix and multi-node run took $(( $(date +%s) - started ))s" >&2
