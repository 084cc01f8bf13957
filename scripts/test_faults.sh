#!/usr/bin/env bash
# The full fault matrix of apply/revert on a real node of its own (port QIDF_TEST_PORT + 4,
# or QIDF_FAULT_PORT): SIGKILL and SIGTERM after every step of both strategies, SIGKILL and
# SIGTERM at random times, the node SIGKILLed and restarted at every step, concurrent
# applies (tests/integration/test_faults_matrix.py); a node of a 3-node cluster
# (QIDF_FAULT_NODES_PORT..+2, default the fault port + 11..13) SIGKILLed at a step, a seeded
# random subset (tests/integration/test_faults_cluster.py); then --strategy reopen on an
# Elasticsearch node (fault port + 1) and the --stats pipeline step on an OpenSearch node
# with the plugin (fault port + 3) (tests/integration/test_faults_stats_reopen.py, 52 cases,
# 8 min quiet, up to 25 on a loaded 2-core runner, most of it node restarts); then statistics
# snapshots (--stats snapshot, snapshot refresh) on an OpenSearch node with the plugin (fault
# port + 5; tests/integration/test_faults_snapshot.py). Too slow for
# scripts/test.sh (which runs a representative subset: tests/integration/test_faults.py).
# Sizes:
#   QIDF_FAULT_RANDOM (30) and QIDF_FAULT_RANDOM_SIGTERM (16) per operation and strategy,
#   QIDF_FAULT_RACES (24), QIDF_FAULT_NODE_DEATHS (all 26), QIDF_FAULT_CLUSTER_DEATHS (12),
#   QIDF_FAULT_SEED (the random subsets; a new one each run, written to the report),
#   QIDF_FAULT_SNAPSHOT_RANDOM (8) and QIDF_FAULT_SNAPSHOT_NODE_DEATHS (2).
# CI's sizes are in .ci/run. Writes the counts to benchmarks/apply/faults.json
# (QIDF_FAULT_REPORT) and faults-stats-reopen.json and faults-snapshot.json beside it.
#   QIDF_TEST_PORT=9250 ./scripts/test_faults.sh       (extra arguments go to pytest)
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python elasticsearch,plot,dev research
cd "$QIDF_ROOT"
started=$(date +%s)
export QIDF_FAULT_MATRIX=1
export QIDF_FAULT_REPORT="${QIDF_FAULT_REPORT:-$QIDF_ROOT/benchmarks/apply/faults.json}"
mkdir -p "$(dirname "$QIDF_FAULT_REPORT")"
rm -f "$QIDF_FAULT_REPORT"  # the files below add their sections to it
# The reopen strategy (Elasticsearch) and the --stats pipeline step need the plugin: built
# here unless given (about a minute each without its Java tests).
QIDF_PLUGIN_ZIP="${QIDF_PLUGIN_ZIP:-$(scripts/build_plugin.sh 2.19.6 --skip-tests | tail -n 1)}"
QIDF_ES_PLUGIN_ZIP="${QIDF_ES_PLUGIN_ZIP:-$(scripts/build_plugin.sh es-8.19.21 --skip-tests | tail -n 1)}"
export QIDF_PLUGIN_ZIP QIDF_ES_PLUGIN_ZIP
"$QIDF_VENV/bin/pytest" -ra -p no:randomly tests/integration/test_faults_matrix.py \
  tests/integration/test_faults_cluster.py tests/integration/test_faults_stats_reopen.py \
  tests/integration/test_faults_snapshot.py "$@"
echo "fault matrix took $(( $(date +%s) - started ))s; counts in $QIDF_FAULT_REPORT" >&2
