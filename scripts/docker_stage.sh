#!/usr/bin/env bash
# CI stage: the Docker demo, run for real (docs/how-to/docker.md).
#
#   scripts/docker_stage.sh
#
# 1. installs Docker from Debian (docker.io, docker-compose, debootstrap) when it is missing;
# 2. starts dockerd when none answers (and stops it at the end, by its pid);
# 3. makes debian:bookworm-slim locally (docker/make_base_image.sh) when no registry has it;
# 4. builds both images from docker/Dockerfile (qidf-engine:2.19.6 and qidf:local);
# 5. `compose up demo` on docker-compose.yml as a user would, then checks the printed table
#    against README.md (docker/check_demo_table.py: same numbers within 1e-4, BM25 below q-log);
# 6. runs one `docker run ... qidf` command against the stack and reaches the engine's
#    published port on 127.0.0.1;
# 7. tears everything down: containers, network and volume (`compose down -v`), and dockerd and
#    its docker0 bridge if this script started them. Also on failure or interrupt. Images and
#    the build cache stay, so the next run builds in seconds.
#
# Environment:
#   QIDF_HOST_PORT   host port of the engine, on 127.0.0.1 (default 9280 here; the compose
#                    file's own default is 9200)
#   QIDF_BUILD_CA    CA bundle the builds' HTTPS downloads trust (passed as the build secret
#                    `ca`); default $SSL_CERT_FILE or /etc/ssl/certs/ca-certificates.crt;
#                    empty: none
#   QIDF_DOCKER_LOGS folder for the logs (default: a temporary one, kept on failure)
# Prints a timing summary at the end. Exit 0 when every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PORT="${QIDF_HOST_PORT:-9280}"
PROJECT="qidfstage"               # compose project: containers qidfstage_*, network qidfstage_default
ENGINE_IMAGE="qidf-engine:2.19.6" # the names docker-compose.yml gives the images
CLI_IMAGE="qidf:local"
BASE_IMAGE="debian:bookworm-slim"
DEFAULT_CA="${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}"
CA="${QIDF_BUILD_CA-$DEFAULT_CA}"
LOGS="${QIDF_DOCKER_LOGS:-$(mktemp -d /tmp/qidf-docker-stage.XXXXXX)}"
mkdir -p "$LOGS"

STARTED_DOCKERD=""   # pid of the dockerd this script started
HAD_DOCKER0=1
IP_FORWARD_BEFORE=""
COMPOSE=()
BUILD_DOCKER=docker
TIMINGS=()
STAGE_START=$SECONDS
PASSED=0
FAILED=0

log() { echo "docker_stage: $*" >&2; }
fail() { log "FAILED: $*"; FAILED=1; exit 1; }
passed() { PASSED=$((PASSED + 1)); log "ok: $*"; }

CHILD=""
interruptible() { # run in the background and wait, so that INT/TERM reach our trap at once
  local rc=0
  "$@" &
  CHILD=$!
  wait "$CHILD" || rc=$?
  CHILD=""
  return $rc
}

timed() { # timed LABEL COMMAND...: run, record its wall time (a failure exits, under set -e)
  local label="$1" start=$SECONDS
  shift
  "$@"
  TIMINGS+=("$(printf '%-34s %4ds' "$label" $((SECONDS - start)))")
}

# --- 1. packages --------------------------------------------------------------------------

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends "$@" >"$LOGS/apt.log" 2>&1; then
    log "apt-get install failed; updating the package lists once"
    apt-get update -q >>"$LOGS/apt.log" 2>&1
    apt-get install -y -q --no-install-recommends "$@" >>"$LOGS/apt.log" 2>&1 \
      || { tail -n 20 "$LOGS/apt.log" >&2; fail "could not install $*"; }
  fi
}

ensure_packages() {
  local missing=()
  command -v dockerd >/dev/null || missing+=(docker.io)
  if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null; then
    missing+=(docker-compose)
  fi
  command -v debootstrap >/dev/null || missing+=(debootstrap)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} from Debian"
    apt_install "${missing[@]}"
  fi
}

pick_clients() {
  # compose v2 when the docker CLI has it, else Debian's compose v1
  if docker compose version >/dev/null 2>&1; then
    COMPOSE=(docker compose -p "$PROJECT")
  else
    COMPOSE=(docker-compose -p "$PROJECT")
  fi
  # A docker CLI that builds with BuildKit: one with buildx, else Debian's 20.10 client (its
  # builder is built in); a 23+ CLI without buildx cannot build with BuildKit at all.
  if docker buildx version >/dev/null 2>&1; then
    BUILD_DOCKER=docker
  elif [ -x /usr/bin/docker ] && /usr/bin/docker --version | grep -q ' 20\.10\.'; then
    BUILD_DOCKER=/usr/bin/docker
  else
    fail "no docker CLI with BuildKit found (install buildx, or Debian's docker.io)"
  fi
  log "compose: ${COMPOSE[*]}; builds: $BUILD_DOCKER ($("$BUILD_DOCKER" --version))"
}

# --- 2. dockerd ---------------------------------------------------------------------------

# What this script started is recorded in $STATE, so that a run after one that was killed
# outright (no chance to clean up) adopts that dockerd and stops it in the end.
STATE=/run/qidf-docker-stage

start_dockerd() {
  local pid
  pid="$(cat "$STATE/dockerd.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    STARTED_DOCKERD="$pid"
    HAD_DOCKER0="$(cat "$STATE/had-docker0")"
    IP_FORWARD_BEFORE="$(cat "$STATE/ip-forward")"
    log "adopting the dockerd (pid $pid) an interrupted run of this script started"
  fi
  if docker info >/dev/null 2>&1; then
    [ -n "$STARTED_DOCKERD" ] || log "using the running Docker engine"
    return 0
  fi
  STARTED_DOCKERD=""
  ip link show docker0 >/dev/null 2>&1 || HAD_DOCKER0=""
  IP_FORWARD_BEFORE="$(cat /proc/sys/net/ipv4/ip_forward 2>/dev/null || true)"
  mkdir -p "$STATE"
  echo "$HAD_DOCKER0" >"$STATE/had-docker0"
  echo "$IP_FORWARD_BEFORE" >"$STATE/ip-forward"
  log "starting dockerd (log: $LOGS/dockerd.log)"
  setsid dockerd --pidfile "$STATE/dockerd.pid" >"$LOGS/dockerd.log" 2>&1 </dev/null 7>&- 8>&- 9>&- &
  STARTED_DOCKERD=$!
  local i
  for i in $(seq 1 120); do
    if docker info >/dev/null 2>&1; then return 0; fi
    kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
    sleep 0.25
  done
  tail -n 20 "$LOGS/dockerd.log" >&2
  fail "dockerd did not come up"
}

stop_dockerd() {
  [ -n "$STARTED_DOCKERD" ] || return 0
  log "stopping the dockerd this script started (pid $STARTED_DOCKERD)"
  kill -TERM "$STARTED_DOCKERD" 2>/dev/null || true
  local i
  for i in $(seq 1 120); do
    kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$STARTED_DOCKERD" 2>/dev/null; then
    log "dockerd did not stop in 30 s; killing it"
    kill -KILL "$STARTED_DOCKERD" 2>/dev/null || true
  fi
  wait "$STARTED_DOCKERD" 2>/dev/null || true
  STARTED_DOCKERD=""
  rm -rf "$STATE"
  # dockerd leaves its bridge and ip_forward behind; put back what was there before
  if [ -z "$HAD_DOCKER0" ]; then ip link delete docker0 2>/dev/null || true; fi
  if [ -n "$IP_FORWARD_BEFORE" ]; then
    echo "$IP_FORWARD_BEFORE" >/proc/sys/net/ipv4/ip_forward 2>/dev/null || true
  fi
}

# --- 3. base image ------------------------------------------------------------------------

ensure_base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    log "$BASE_IMAGE is present"
  elif timeout 120 docker pull -q "$BASE_IMAGE" >"$LOGS/pull.log" 2>&1; then
    log "pulled $BASE_IMAGE"
  else
    log "no registry answers ($(tail -n 1 "$LOGS/pull.log")); making $BASE_IMAGE locally"
    timed "debootstrap base image" docker/make_base_image.sh "$BASE_IMAGE"
  fi
}

# --- 4. images ----------------------------------------------------------------------------

MAVEN_SEED_IMAGE="qidf-maven-seed:local"
BUILD_ARGS=()

make_maven_seed() {
  # A first build downloads ~140 MB from Maven Central in hundreds of small requests, slowly.
  # After scripts/test.sh the host's ~/.m2 has all of it: copy the folders the build reads
  # (docker/maven-seed.txt) into an image and hand it to the build as MAVEN_SEED. Skipped when
  # the engine image exists (its build cache has them) or the host has no Maven repository.
  local repo="$HOME/.m2/repository"
  if docker image inspect "$ENGINE_IMAGE" >/dev/null 2>&1 || [ ! -d "$repo" ]; then
    return 0
  fi
  local list="$LOGS/maven-seed.txt" wanted
  wanted="$(grep -vc '^#' docker/maven-seed.txt)"
  (cd "$repo" && grep -v '^#' "$ROOT/docker/maven-seed.txt" | while read -r d; do
     if [ -d "$d" ]; then echo "repository/$d"; fi; done) >"$list"
  log "Maven seed: $(wc -l <"$list") of $wanted folders from the host's ~/.m2"
  [ -s "$list" ] || return 0
  tar -C "$HOME/.m2" -c -T "$list" | docker import - "$MAVEN_SEED_IMAGE" >/dev/null
  BUILD_ARGS+=(--build-arg "MAVEN_SEED=$MAVEN_SEED_IMAGE")
}

build() { # build TARGET TAG
  local args=(build --progress=plain -f docker/Dockerfile --target "$1" -t "$2" "${BUILD_ARGS[@]}")
  if [ -n "$CA" ] && [ -s "$CA" ]; then args+=(--secret "id=ca,src=$CA"); fi
  log "building $2 (target $1; log: $LOGS/build-$1.log)"
  if ! interruptible env DOCKER_BUILDKIT=1 nice "$BUILD_DOCKER" "${args[@]}" . >"$LOGS/build-$1.log" 2>&1; then
    tail -n 30 "$LOGS/build-$1.log" >&2
    fail "building $2 failed"
  fi
}

# --- 5-7. the stack ----------------------------------------------------------------------

compose() { QIDF_HOST_PORT="$PORT" "${COMPOSE[@]}" "$@"; }

teardown_stack() {
  [ ${#COMPOSE[@]} -gt 0 ] || return 0
  docker info >/dev/null 2>&1 || return 0
  compose down -v --remove-orphans >"$LOGS/down.log" 2>&1 \
    || { cat "$LOGS/down.log" >&2; log "compose down failed"; }
}

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

run_demo() {
  log "compose up demo: engine, healthcheck (at least yellow), demo (log: $LOGS/demo.log)"
  if ! interruptible env QIDF_HOST_PORT="$PORT" timeout 600 "${COMPOSE[@]}" up --no-build --no-color \
       demo >"$LOGS/demo.log" 2>&1; then
    tail -n 40 "$LOGS/demo.log" >&2
    fail "compose up demo failed"
  fi
  local code
  code="$(docker ps -a --filter "label=com.docker.compose.project=$PROJECT" \
            --filter label=com.docker.compose.service=demo --format '{{.Status}}')"
  [[ "$code" == "Exited (0)"* ]] || { tail -n 40 "$LOGS/demo.log" >&2; fail "the demo container: $code"; }
  passed "compose up demo printed its table and exited 0"
  log "$(demo_breakdown)"
}

demo_breakdown() { # engine start -> healthy (the demo starts then) -> demo done, from docker
  local ids
  ids="$(docker ps -aq --filter "label=com.docker.compose.project=$PROJECT")"
  # shellcheck disable=SC2086
  docker inspect $ids | python3 -c '
import datetime as dt, json, sys
def t(s): return dt.datetime.fromisoformat(s[:26].rstrip("Z"))
c = {x["Config"]["Labels"]["com.docker.compose.service"]: x["State"] for x in json.load(sys.stdin)}
e, d = c["engine"], c["demo"]
print("engine start to healthy (demo start) %.0f s, demo %.0f s" % (
    (t(d["StartedAt"]) - t(e["StartedAt"])).total_seconds(),
    (t(d["FinishedAt"]) - t(d["StartedAt"])).total_seconds()))'
}

check_table() {
  # The engine image has the plugin, so `--mode auto` must pick it; README.md's table comes
  # from the local engine's Painless path: equal numbers show the two modes agree.
  grep -q "mode: native plugin" "$LOGS/demo.log" \
    || fail "the compose demo did not use the native plugin: $(grep -m1 'mode:' "$LOGS/demo.log")"
  python3 docker/check_demo_table.py README.md "$LOGS/demo.log" >&2 \
    || fail "the compose demo's table differs from the local demo's (README.md)"
  passed "the table (native plugin) equals README.md's within 1e-4, BM25 below every q-log row"
}

check_cli() {
  local network="${PROJECT}_default" out
  log "docker run $CLI_IMAGE predict qidf-demo-go --json, on network $network via QIDF_URL"
  out="$(docker run --rm --network "$network" -e QIDF_URL=http://engine:9200 \
           "$CLI_IMAGE" predict qidf-demo-go --json 2>"$LOGS/cli.err")" \
    || { cat "$LOGS/cli.err" >&2; fail "docker run ... qidf predict failed"; }
  echo "$out" >"$LOGS/cli.json"
  python3 -c 'import json, sys; r = json.load(sys.stdin); assert 0 <= r["q"] <= 2, r; \
print("docker_stage: qidf predict in the container: q =", r["q"], file=sys.stderr)' <<<"$out" \
    || fail "qidf predict printed no q: $out"
  passed "docker run $CLI_IMAGE predict (QIDF_URL on the compose network)"
}

check_engine() {
  local health plugins
  health="$(curl -fsS "http://127.0.0.1:$PORT/_cluster/health?wait_for_status=yellow&timeout=5s")" \
    || fail "the engine is not reachable on 127.0.0.1:$PORT"
  plugins="$(curl -fsS "http://127.0.0.1:$PORT/_cat/plugins?h=component")"
  grep -qx qidf-qlog-similarity <<<"$plugins" || fail "the engine has no qlog_bm25 plugin: $plugins"
  passed "engine on 127.0.0.1:$PORT: $(grep -o '"status":"[a-z]*"' <<<"$health"), plugin qidf-qlog-similarity loaded"
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  exec 1>&7 2>&8 # a trap runs inside the redirections of the step it interrupted
  if [ -n "$CHILD" ]; then kill -TERM "$CHILD" 2>/dev/null || true; wait "$CHILD" 2>/dev/null || true; fi
  if [ $rc -ne 0 ]; then
    echo "docker_stage: $PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"
  fi
  if [ $rc -ne 0 ] && [ ${#COMPOSE[@]} -gt 0 ] && docker info >/dev/null 2>&1; then
    compose logs --no-color --tail 60 engine >"$LOGS/engine-tail.log" 2>&1 || true
    log "engine log tail: $LOGS/engine-tail.log"
  fi
  teardown_stack
  if docker info >/dev/null 2>&1; then docker image rm "$MAVEN_SEED_IMAGE" >/dev/null 2>&1 || true; fi
  stop_dockerd
  if [ $rc -eq 0 ]; then
    [ -n "${QIDF_DOCKER_LOGS:-}" ] || rm -rf "$LOGS"
  else
    log "logs kept in $LOGS"
  fi
  exit $rc
}

main() {
  exec 7>&1 8>&2
  exec 9>/run/lock/qidf-docker-stage.lock
  flock -w 900 9 || fail "another docker_stage.sh holds /run/lock/qidf-docker-stage.lock"
  trap cleanup EXIT
  trap 'exit 130' INT TERM

  timed "apt install (if missing)" ensure_packages
  pick_clients
  timed "dockerd start (if none runs)" start_dockerd
  teardown_stack # leftovers of an interrupted earlier run
  port_free "$PORT" || fail "127.0.0.1:$PORT is taken: set QIDF_HOST_PORT to a free port"
  ensure_base_image
  timed "Maven seed (first build only)" make_maven_seed
  timed "build $ENGINE_IMAGE" build engine "$ENGINE_IMAGE"
  timed "build $CLI_IMAGE" build qidf "$CLI_IMAGE"
  timed "compose up demo -> table" run_demo
  check_table
  check_engine
  timed "docker run qidf predict" check_cli
  timed "compose down -v" teardown_stack
  log "images: $(docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' \
    | grep -E "^($ENGINE_IMAGE|$CLI_IMAGE|$BASE_IMAGE) " | paste -sd ',' -)"
  timed "dockerd stop (if started here)" stop_dockerd
  printf '%s\n' "${TIMINGS[@]}" >&2
  printf '%-34s %4ds\n' "docker stage total" $((SECONDS - STAGE_START)) >&2
  echo "docker_stage: $PASSED passed, 0 failed"
}

main "$@"
