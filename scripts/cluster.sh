#!/usr/bin/env bash
# A Strata cluster on this machine, loopback only (docs/cluster.md):
#   scripts/cluster.sh up [N]   3 etcd members, 3 JetStream NATS servers and N stratad nodes
#                               (default 3; with more, each shard on three of them); returns
#                               once every node serves, printing
#                               `node ID PID GRPC_ADDRESS HTTP_ADDRESS PG_ADDRESS` per node
#   scripts/cluster.sh add-node one more node, put on the cluster's list: replicas move to it
#   scripts/cluster.sh status   nodes, shards, leaders, placement and what each replica applied
#   scripts/cluster.sh down     stops everything `up` started (by PID); the data stays
#   scripts/cluster.sh purge    down, then deletes $STRATA_CLUSTER_DIR
# Data and logs go under $STRATA_CLUSTER_DIR (default ./strata-cluster); ports are taken
# from $STRATA_CLUSTER_PORT_BASE (default 17000) up: etcd base+0..5, NATS base+10..12 and
# base+20..22 (routes),
# base+30..32 (monitoring), node j's gRPC/HTTP/PostgreSQL base+100+10j .. +2.
# STRATAD and STRATA name the binaries (default: build/server/stratad, build/client/strata).
# STRATA_CLUSTER_SHARD_REPLICAS=R: each shard on R of the nodes (--cluster-shard-replicas),
# whatever their number.
# STRATA_CLUSTER_TLS=1: every connection over TLS (docs/cluster.md, "Security") with a CA and
# certificates made under $STRATA_CLUSTER_DIR/tls (openssl): etcd and NATS require client
# certificates, nodes call each other over mutual TLS, and clients need a token (the first
# admin's is written to $STRATA_CLUSTER_DIR/admin.token) and --tls-ca $DIR/tls/ca.pem.
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

tls=${STRATA_CLUSTER_TLS:-0}
[ "$tls" = 1 ] && scheme=https || scheme=http
etcdctl_tls=() node_tls=() cli_tls=()
if [ "$tls" = 1 ]; then
  t="$dir/tls"
  etcdctl_tls=(--cacert "$t/ca.pem" --cert "$t/node.pem" --key "$t/node.key")
  node_tls=(--tls-cert "$t/node.pem" --tls-key "$t/node.key" --cluster-ca "$t/ca.pem"
    --etcd-ca "$t/ca.pem" --etcd-cert "$t/node.pem" --etcd-key "$t/node.key"
    --nats-ca "$t/ca.pem" --nats-cert "$t/node.pem" --nats-key "$t/node.key"
    --bootstrap-token-file "$dir/admin.token")
  cli_tls=(--tls-ca "$t/ca.pem")
fi

# A CA and one certificate for 127.0.0.1 that every process serves and presents (a cluster
# of machines has one per machine, each signed by the CA).
make_certs() {
  [ -s "$dir/tls/node.pem" ] && return 0
  mkdir -p "$dir/tls"
  (
    cd "$dir/tls" && umask 077
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 825 -subj /CN=strata-cluster-ca
    openssl req "${ec[@]}" -keyout node.key -out node.csr -subj /CN=strata-node
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >node.ext
    openssl x509 -req -in node.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 825 \
      -out node.pem -extfile node.ext
  ) >"$dir/tls.log" 2>&1 || { echo "cluster.sh: openssl failed; see $dir/tls.log" >&2; exit 1; }
}

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
  [ "$tls" = 1 ] && make_certs

  local initial="" i
  for i in 0 1 2; do initial+="${initial:+,}e$i=http://127.0.0.1:$((base + 2 * i + 1))"; done
  for i in 0 1 2; do
    local state=new
    [ -d "$dir/etcd$i/member" ] && state=existing
    local etcd_tls=()
    [ "$tls" = 1 ] && etcd_tls=(--cert-file "$t/node.pem" --key-file "$t/node.key"
      --trusted-ca-file "$t/ca.pem" --client-cert-auth)
    start etcd "etcd$i" etcd --name "e$i" --data-dir "$dir/etcd$i" "${etcd_tls[@]}" \
      --listen-client-urls "$scheme://127.0.0.1:$((base + 2 * i))" \
      --advertise-client-urls "$scheme://127.0.0.1:$((base + 2 * i))" \
      --listen-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" \
      --initial-advertise-peer-urls "http://127.0.0.1:$((base + 2 * i + 1))" \
      --initial-cluster "$initial" --initial-cluster-state "$state" \
      --initial-cluster-token "strata-$base"
  done
  local routes=""
  for i in 0 1 2; do routes+="${routes:+,}nats://127.0.0.1:$((base + 20 + i))"; done
  local nats_tls=()
  [ "$tls" = 1 ] && nats_tls=(--tls --tlscert "$t/node.pem" --tlskey "$t/node.key"
    --tlscacert "$t/ca.pem" --tlsverify)
  for i in 0 1 2; do
    start nats "nats$i" nats-server "${nats_tls[@]}" --jetstream --store_dir "$dir/nats$i" --server_name "n$i" \
      -a 127.0.0.1 -p $((base + 10 + i)) --cluster_name "strata-$base" \
      --cluster "nats://127.0.0.1:$((base + 20 + i))" --routes "$routes" \
      -m $((base + 30 + i))
  done
  wait_for "etcd" 30 env ETCDCTL_API=3 etcdctl --endpoints "$(etcd_endpoints)" \
    "${etcdctl_tls[@]}" endpoint health
  for i in 0 1 2; do
    wait_for "NATS n$i" 120 curl -sf "http://127.0.0.1:$((base + 30 + i))/healthz"
  done

  local j placement=()
  if ((nodes > 3)) || [ -n "${STRATA_CLUSTER_SHARD_REPLICAS:-}" ]; then
    # More nodes than copies: each shard's three replicas (or $STRATA_CLUSTER_SHARD_REPLICAS)
    # on that many of them (docs/cluster.md).
    local ids=n0
    for ((j = 1; j < nodes; j++)); do ids+=",n$j"; done
    placement=(--cluster-nodes "$ids" --cluster-shard-replicas "${STRATA_CLUSTER_SHARD_REPLICAS:-3}")
  fi
  for ((j = 0; j < nodes; j++)); do start_node "$j" "${placement[@]}"; done
  for ((j = 0; j < nodes; j++)); do
    wait_for "node n$j" 60 "$strata" -p $((base + 100 + 10 * j)) "${cli_tls[@]}" health
  done
  print_nodes
}

start_node() { # index, more flags...: node n<index> with its ports and data dir
  local j=$1 port=$((base + 100 + 10 * $1))
  shift
  start node "node$j" "$stratad" --cluster --node-id "n$j" --etcd "$(etcd_endpoints)" \
    --nats "$(nats_urls)" --cluster-secret-file "$dir/secret" --data-dir "$dir/node$j" \
    --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$((port + 1))" \
    --pg-listen "127.0.0.1:$((port + 2))" "${node_tls[@]}" "$@" ${STRATA_CLUSTER_NODE_FLAGS:-}
}

print_nodes() {
  while read -r kind name pid; do
    [ "$kind" = node ] || continue
    local k=${name#node} port
    port=$((base + 100 + 10 * k))
    echo "node n$k $pid 127.0.0.1:$port 127.0.0.1:$((port + 1)) 127.0.0.1:$((port + 2))"
  done <"$pids"
}

# One more node, n<count of nodes so far>, put on the cluster's list: shard replicas move to
# it (strata cluster add-node), a few at a time.
add_node() {
  [ -s "$pids" ] || { echo "cluster.sh: no cluster is up (no $pids)" >&2; exit 1; }
  local j
  j=$(awk '$1 == "node"' "$pids" | wc -l)
  start_node "$j"
  wait_for "node n$j" 60 "$strata" -p $((base + 100 + 10 * j)) "${cli_tls[@]}" health
  local token=()
  [ -s "$dir/admin.token" ] && token=(--token "$(cat "$dir/admin.token")")
  "$strata" -p $((base + 100 + 10 * j)) "${cli_tls[@]}" "${token[@]}" cluster add-node "n$j" >&2
  print_nodes
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
    local token=()
    [ -s "$dir/admin.token" ] && token=(--token "$(cat "$dir/admin.token")")
    "$strata" -p $((base + 100 + 10 * ${name#node})) "${cli_tls[@]}" "${token[@]}" \
      cluster status --format table && return 0
  done <"$pids"
  return 1
}

case "${1:-}" in
  up) up "${2:-3}" ;;
  add-node) add_node ;;
  down) down ;;
  status) status ;;
  purge) down && rm -rf "$dir" ;;
  *) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
