#!/usr/bin/env bash
# The secured-cluster tests, apart from scripts/test.sh to keep that one within its time:
# a real OpenSearch 2.19.1 with the security plugin 2.19.1.0 (TLS from a CA made for the run,
# users whose roles are docs/how-to/privileges.md's), started once (40-120 s) on
# QIDF_TEST_SECURED_PORT (default 9260, transport +100) and stopped after. CI runs both.
#   ./scripts/test_secured.sh            (extra arguments go to pytest, e.g. -k tls)
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python elasticsearch,plot,dev,mcp,langchain,llamaindex research
cd "$QIDF_ROOT"
started=$(date +%s)
"$QIDF_VENV/bin/pytest" -ra tests/integration/secured "$@"
echo "secured tests took $(( $(date +%s) - started ))s" >&2
