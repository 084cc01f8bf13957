# Shared by demo.sh and test.sh: a project virtualenv with qidf installed in it.
# Sourced, not run. Creates .venv on first use; later runs only re-check the install.

QIDF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QIDF_VENV="${QIDF_VENV:-$QIDF_ROOT/.venv}"

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "error: $1 not found: $2" >&2; exit 1; }
}

# bootstrap_python EXTRAS [research]: qidf[EXTRAS] editable; with "research", the research
# package too (benchmarks and corpus builders, never part of the product).
bootstrap_python() {
  local extras="$1" research="${2:-}"
  need python3 "install Python 3.10+ (e.g. apt-get install python3 python3-venv)"
  need java "install a JDK 17 (e.g. apt-get install openjdk-17-jdk-headless)"
  need mvn "install Maven (e.g. apt-get install maven): the local engine is fetched with it"
  if [ ! -x "$QIDF_VENV/bin/python" ]; then
    echo "creating virtualenv $QIDF_VENV" >&2
    python3 -m venv "$QIDF_VENV"
  fi
  local stamp="$QIDF_VENV/.qidf-installed-${extras:-core}${research:+-research}"
  if [ ! -f "$stamp" ] || [ "$QIDF_ROOT/pyproject.toml" -nt "$stamp" ] \
      || [ "$QIDF_ROOT/research/pyproject.toml" -nt "$stamp" ]; then
    echo "installing qidf${extras:+[$extras]}${research:+ and the research package} into $QIDF_VENV" >&2
    "$QIDF_VENV/bin/pip" install -q --upgrade pip >/dev/null
    local targets=(-e "$QIDF_ROOT${extras:+[$extras]}")
    [ -n "$research" ] && targets+=(-e "$QIDF_ROOT/research")
    "$QIDF_VENV/bin/pip" install -q "${targets[@]}"
    touch "$stamp"
  fi
}
