#!/usr/bin/env bash
# One command for every test: lint, unit tests, the Java plugin's tests, and the integration
# tests against a real OpenSearch node that the test session starts (port 9250) and stops.
#   ./scripts/test.sh            (extra arguments go to pytest, e.g. -k parity)
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python elasticsearch,plot,dev research
cd "$QIDF_ROOT"
started=$(date +%s)
"$QIDF_VENV/bin/ruff" check .
"$QIDF_VENV/bin/mypy" qidf_ctl research/qidf_research
echo "== Java plugin: unit tests and build (OpenSearch ${QIDF_ENGINE_VERSION:-2.19.6})" >&2
QIDF_PLUGIN_ZIP="$(scripts/build_plugin.sh "${QIDF_ENGINE_VERSION:-2.19.6}" | tail -n 1)"
export QIDF_PLUGIN_ZIP
echo "== Java plugin: unit tests and build (Elasticsearch ${QIDF_ES_VERSION:-8.19.21})" >&2
QIDF_ES_PLUGIN_ZIP="$(scripts/build_plugin.sh "es-${QIDF_ES_VERSION:-8.19.21}" | tail -n 1)"
export QIDF_ES_PLUGIN_ZIP
echo "== Python: unit and integration tests" >&2
"$QIDF_VENV/bin/pytest" -ra "$@"
echo "test suite took $(( $(date +%s) - started ))s" >&2
