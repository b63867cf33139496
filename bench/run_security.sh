#!/usr/bin/env bash
# The cost of TLS and tokens: the same ingest (WriteRecords, 100 records a request) and the same
# small query against a fresh stratad, first plaintext without authentication, then with TLS
# (a certificate made here with openssl) and a bearer token on every call.
# Usage: bench/run_security.sh [rows] [query runs]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-500000}
runs=${2:-300}
scripts/build.sh stratad ingest_bench query_bench >/dev/null
dir=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
port=${STRATA_BENCH_PORT:-7881}

ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
(
  cd "$dir"
  openssl req -x509 $ec -keyout ca.key -out ca.pem -days 2 -subj /CN=bench-ca 2>/dev/null
  openssl req $ec -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\n' >ext
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
    -out server.pem -extfile ext 2>/dev/null
)

run() { # NAME STRATAD-FLAGS... -- CLIENT-FLAGS...
  local name=$1 server=() client=()
  shift
  while [ "$1" != -- ]; do server+=("$1"); shift; done
  shift
  client=("$@")
  rm -rf "$dir/data"
  build/server/stratad --data-dir "$dir/data" --listen "127.0.0.1:$port" --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 "${server[@]}" \
    2>"$dir/$name.log" &
  pid=$!
  until grep -q "serving on port" "$dir/$name.log"; do sleep 0.1; done
  if [ -f "$dir/data/admin.token" ]; then client+=(--token "$(cat "$dir/data/admin.token")"); fi
  echo "== $name"
  build/bench/ingest_bench --target "127.0.0.1:$port" "${client[@]}" --hosts 1000 \
    --rows "$rows" --streams 4 | sed -n '2,3p'
  build/bench/query_bench --target "127.0.0.1:$port" "${client[@]}" --runs "$runs" \
    --only single-groupby-1-1-1
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
}

run plaintext --auth off --
run token --auth on --
run tls+token --tls-cert "$dir/server.pem" --tls-key "$dir/server.key" -- --tls-ca "$dir/ca.pem"
