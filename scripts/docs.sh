#!/usr/bin/env bash
# The documentation site: mkdocs with mkdocs-material (the `docs` extra), built from docs/ in
# strict mode, so a broken link or anchor, a nav entry with no page, a page missing from the
# nav or a reference section that cannot be generated fails the build.
#   ./scripts/docs.sh              build into site/ (scripts/test.sh runs this)
#   ./scripts/docs.sh serve        preview on http://127.0.0.1:8000, rebuilt on every change
# Extra arguments go to mkdocs (e.g. --dev-addr 127.0.0.1:8010, --site-dir DIR).
set -euo pipefail
source "$(dirname "$0")/bootstrap.sh"
bootstrap_python docs,plot  # plot: matplotlib draws the pictures (scripts/docs/pictures.py)
cd "$QIDF_ROOT"
started=$(date +%s)
command="${1:-build}"
[ "$#" -gt 0 ] && shift
# Material 9.7+ prints a banner about its end of life (May 2027) and its successor, Zensical,
# on every build; docs/development/docs.md says so once instead.
NO_MKDOCS_2_WARNING=1 "$QIDF_VENV/bin/mkdocs" "$command" --strict "$@"
[ "$command" = build ] && echo "docs site built in $(( $(date +%s) - started ))s (site/)" >&2
exit 0
