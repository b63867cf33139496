#!/usr/bin/env bash
# A Strata cluster on this machine, loopback only (docs/cluster.md):
#   scripts/cluster.sh up [N]   3 etcd members, 3 JetStream NATS servers and N stratad nodes
#                               (default 3); returns once every node serves, printing
#                               `node ID PID GRPC_ADDRESS HTTP_ADDRESS PG_ADDRESS` per node
#   scripts/cluster.sh status   nodes, shards, leaders and what each replica applied
#   scripts/cluster.sh down     stops everything `up` started (by PID); the data stays
#   scripts/cluster.sh purge    down, then deletes $STRATA_CLUSTER_DIR
# Data and logs go under $STRATA_CLUSTER_DIR (default ./strata-cluster); ports are taken
# from $STRATA_CLUSTER_PORT_BASE (default 17000) up: etcd base+0..5, NATS base+10..12 and
# base+20..22 (routes),
# base+30..32 (monitoring), node j's gRPC/HTTP/PostgreSQL base+100+10j .. +2.
# STRATAD and STRATA name the binaries (default: build/server/stratad, build/client/strata).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${STRATA_CLUSTER_DIR:-$PWD/strata-cluster}
base=${STRATA_CLUSTER_PORT_BASE:-17000}
stratad=${STRATAD:-$PWD/build/server/stratad}
strata=${STRATA:-$PWD/build/client/strata}
pids="$dir/pids"

etcd_endpoints() { echo "127.0.0.1:$base,127.0.0.1:$((base + 2)),127.0.0.1:$((base + 4))"; }
nats_urls() { echo "nats://127.0.0.1:$((base + 10)),nats://127.0.0.1:$((base + 11)),nats://127.0.0.1:$((base + 12))"; }

running() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

start() { # kind name command...: started in the background, its PID recorded
  local kind=$1 name=$2
  shift 2
  "$@" >"$dir/$name.log" 2>&1 &
  echo "$kind $name $!" >>"$pids"
}

wait_for() { # what, seconds, command...
  local what=$1 seconds=$2
  shift 2
  for _ in $(seq $((seconds * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "cluster.sh: $what did not come up in ${seconds}s; see $dir/*.log" >&2
  return 1
}

up() {
  local nodes=${1:-3}
  command -v etcd >/dev/null && command -v nats-server >/dev/null || {
    echo "cluster.sh: etcd and nats-server are needed: run scripts/deps.sh" >&2
    exit 1
  }
  [ -x "$stratad" ] || scripts/build.sh stratad strata >&2
  mkdir -p "$dir"
  if [ -s "$pids" ]; then
    while read -r _ name pid; do
      if running "$pid"; then
        echo "cluster.sh: $name (pid $pid) is still running: scripts/cluster.sh down first" >&2
        exit 1
      fi
    done <"$pids"
  fi
  : >"$pids"
  [ -s "$dir/secret" ] || (umask 077 && head -c 24 /dev/urandom | base64 >"$dir/secret")

  local initial="" i
  for i in 0 1 2; do initial+="${initial:+,}e$i=http://127.0.0.1:$((base + 2 * i + 1))"; done
  for i in 0 1 2; do
    local state=new
    [ -d "$dir/etcd$i/member" ] && state=existing
    start etcd "etcd$i" etcd --name "e$i" --data-dir "$dir/etcd$i" \
      --listen-client-urls "http://127.0.0.1:$((base + 2 * i))" \
      --advertise-client-urls "http://127.0.0.1:$((base + 2 * i))" \
      --listen-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" \
      --initial-advertise-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" \
      --initial-cluster "$initial" --initial-cluster-state "$state" \
      --initial-cluster-token "strata-$base"
  done
  local routes=""
  for i in 0 1 2; do routes+="${routes:+,}nats://127.0.0.1:$((base + 20 + i))"; done
  for i in 0 1 2; do
    start nats "nats$i" nats-server --jetstream --store_dir "$dir/nats$i" --server_name "n$i" \
      -a 127.0.0.1 -p $((base + 10 + i)) --cluster_name "strata-$base" \
      --cluster "nats://127.0.0.1:$((base + 20 + i))" --routes "$routes" \
      -m $((base + 30 + i))
  done
  wait_for "etcd" 30 env ETCDCTL_API=3 etcdctl --endpoints "$(etcd_endpoints)" endpoint health
  for i in 0 1 2; do
    wait_for "NATS n$i" 120 curl -sf "http://127.0.0.1:$((base + 30 + i))/healthz"
  done

  local j
  for ((j = 0; j < nodes; j++)); do
    local port=$((base + 100 + 10 * j))
    start node "node$j" "$stratad" --cluster --node-id "n$j" --etcd "$(etcd_endpoints)" \
      --nats "$(nats_urls)" --cluster-secret-file "$dir/secret" --data-dir "$dir/node$j" \
      --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$((port + 1))" \
      --pg-listen "127.0.0.1:$((port + 2))" ${STRATA_CLUSTER_NODE_FLAGS:-}
  done
  for ((j = 0; j < nodes; j++)); do
    wait_for "node n$j" 60 "$strata" -p $((base + 100 + 10 * j)) health
  done
  while read -r kind name pid; do
    [ "$kind" = node ] || continue
    local k=${name#node} port
    port=$((base + 100 + 10 * k))
    echo "node n$k $pid 127.0.0.1:$port 127.0.0.1:$((port + 1)) 127.0.0.1:$((port + 2))"
  done <"$pids"
}

down() {
  [ -s "$pids" ] || return 0
  # Nodes first (they hand their shards over), then NATS, then etcd.
  local kind
  for kind in node nats etcd; do
    local stopping=()
    while read -r k _ pid; do
      [ "$k" = "$kind" ] && running "$pid" && kill -TERM "$pid" 2>/dev/null && stopping+=("$pid")
    done <"$pids"
    for pid in "${stopping[@]}"; do
      for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
      running "$pid" && kill -KILL "$pid" 2>/dev/null
    done
  done
  : >"$pids"
}

status() {
  local port
  port=$(awk '$1 == "node" {print $2; exit}' "$pids" 2>/dev/null | sed 's/node//')
  [ -n "$port" ] || { echo "cluster.sh: no cluster is up (no $pids)" >&2; exit 1; }
  while read -r kind name pid; do
    running "$pid" && echo "$kind $name pid $pid" || echo "$kind $name pid $pid (not running)"
  done <"$pids"
  # Ask the first node that answers.
  while read -r kind name pid; do
    [ "$kind" = node ] && running "$pid" || continue
    "$strata" -p $((base + 100 + 10 * ${name#node})) cluster status --format table && return 0
  done <"$pids"
  return 1
}

case "${1:-}" in
  up) up "${2:-3}" ;;
  down) down ;;
  status) status ;;
  purge) down && rm -rf "$dir" ;;
  *) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
