#!/usr/bin/env bash
# One command for every test: lint, the docs site (strict), unit tests, the Java plugin's
# tests, and the integration tests against a real OpenSearch node that the test session
# starts (port 9250) and stops.
#   ./scripts/test.sh            (extra arguments go to pytest, e.g. -k parity)
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python elasticsearch,plot,dev,mcp,langchain,llamaindex research
cd "$QIDF_ROOT"
started=$(date +%s)
"$QIDF_VENV/bin/ruff" check .
"$QIDF_VENV/bin/mypy" qidf_ctl research/qidf_research
echo "== docs site: mkdocs --strict (about 10 s)" >&2
bash scripts/docs.sh
echo "== Java plugin: unit tests and build (OpenSearch ${QIDF_ENGINE_VERSION:-2.19.6})" >&2
QIDF_PLUGIN_ZIP="$(scripts/build_plugin.sh "${QIDF_ENGINE_VERSION:-2.19.6}" | tail -n 1)"
export QIDF_PLUGIN_ZIP
echo "== Java plugin: unit tests and build (Elasticsearch ${QIDF_ES_VERSION:-8.19.21})" >&2
QIDF_ES_PLUGIN_ZIP="$(scripts/build_plugin.sh "es-${QIDF_ES_VERSION:-8.19.21}" | tail -n 1)"
export QIDF_ES_PLUGIN_ZIP
echo "== Python: unit and integration tests (the secured cluster's: scripts/test_secured.sh)" >&2
# Every input reader fuzzed with 1,000 generated inputs (tests/unit/test_input_fuzz.py; 250
# when the unit tests run alone): about 40 s on a quiet machine.
QIDF_FUZZ_EXAMPLES="${QIDF_FUZZ_EXAMPLES:-1000}" \
  "$QIDF_VENV/bin/pytest" -ra --ignore=tests/integration/secured "$@"
if [ "$#" -eq 0 ]; then
  # The elasticsearch extra allows the 8.x and the 9.x client: the suite above ran the one pip
  # chose; run the Elasticsearch tests again with the other major.
  major=$("$QIDF_VENV/bin/python" -c 'import elasticsearch; print(elasticsearch.__versionstr__[0])')
  if [ "$major" = 9 ]; then other="elasticsearch>=8.13,<9"; else other="elasticsearch>=9,<10"; fi
  target="$QIDF_ROOT/.qidf/clients/es-$([ "$major" = 9 ] && echo 8 || echo 9)"
  echo "== Elasticsearch tests with the other client major ($other)" >&2
  # python-dateutil as botocore (SigV4) needs it: the client would pull 4.x beside the venv's 2.x
  [ -d "$target" ] || "$QIDF_VENV/bin/pip" install -q --target "$target" "$other" "python-dateutil<3"
  PYTHONPATH="$target" "$QIDF_VENV/bin/pytest" -q tests/integration/test_elasticsearch.py
fi
echo "test suite took $(( $(date +%s) - started ))s" >&2
