#!/usr/bin/env bash
# One command for newcomers: set up, start the local OpenSearch node, run the demo.
#   ./scripts/demo.sh            (extra arguments go to `qidf demo`, e.g. --queries 1000)
# The plot and mcp extras are installed too: the demo ends with commands to paste, `sweep
# --plot` and `mcp` among them.
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python "plot,mcp"
exec "$QIDF_VENV/bin/qidf" demo "$@"
