#!/usr/bin/env bash
# The engine image's entry point: one OpenSearch node in the foreground, as the image's
# unprivileged user (OpenSearch refuses to run as root).
#
# Defaults for a single-node demo: discovery.type=single-node, network.host=0.0.0.0 (inside
# the container; compose publishes the port on the host's 127.0.0.1 only), cluster.name
# qidf-docker. As in the official image, every environment variable whose name contains a dot
# is passed as a setting (-e cluster.name=x becomes -Ecluster.name=x) and overrides a default;
# arguments are passed on to bin/opensearch. Heap: OPENSEARCH_JAVA_OPTS (default 1 GB).
set -euo pipefail

declare -A settings=(
  [discovery.type]=single-node
  [network.host]=0.0.0.0
  [cluster.name]=qidf-docker
)
while IFS= read -r -d '' entry; do
  name="${entry%%=*}"
  if [[ "$name" == *.* && "$name" =~ ^[a-z0-9_.]+$ ]]; then
    settings[$name]="${entry#*=}"
  fi
done < <(env -0)

args=()
for name in "${!settings[@]}"; do
  args+=("-E$name=${settings[$name]}")
done
exec /usr/share/opensearch/bin/opensearch "${args[@]}" "$@"
