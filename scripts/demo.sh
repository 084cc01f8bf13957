#!/usr/bin/env bash
# One command for newcomers: set up, start the local OpenSearch node, run the demo.
#   ./scripts/demo.sh            (extra arguments go to `qidf demo`, e.g. --queries 1000)
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python ""
exec "$QIDF_VENV/bin/qidf" demo "$@"
