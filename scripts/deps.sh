#!/usr/bin/env bash
# Installs the Debian 12 packages Strata needs to build, test and run, if any
# are missing. Idempotent: with everything present it only checks. Uses sudo
# when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler grpc-proto
  librocksdb-dev libxxhash-dev libspdlog-dev libfmt-dev libabsl-dev
  # The IANA time zones at_timezone and with_timezone read (Abseil loads them).
  tzdata
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev
  # SQLite: the independent engine the query engine's generated statements are checked against.
  libsqlite3-dev
  libzstd-dev liblz4-dev libsnappy-dev libssl-dev libjemalloc-dev libedit-dev libre2-dev libsodium-dev openssl
  prometheus-cpp-dev libcpp-httplib-dev prometheus
  python3 python3-grpcio python3-protobuf
  # The real clients of the protocol tests: psql and psycopg (PostgreSQL wire), and SQLAlchemy
  # over psycopg2 (its reflection of tables, pandas reading through it).
  postgresql-client python3-psycopg python3-psycopg2 python3-sqlalchemy curl
  # The Python client package: installed with pip into a venv in its tests; pandas for DataFrames.
  python3-venv python3-pip python3-setuptools python3-pandas
  # The web console's tests drive a real headless Chromium (console/test/).
  chromium
  # Cluster mode (docs/cluster.md): etcd's gRPC API from the .proto files Debian ships for
  # Go (stubs generated at build time), the NATS C client, and the servers the cluster
  # tests and scripts/cluster.sh run.
  etcd-server etcd-client golang-etcd-server-dev golang-github-gogo-protobuf-dev
  golang-github-gogo-googleapis-dev nats-server libnats-dev
  # The partition test cuts a node off with iptables (as root; skipped otherwise).
  iptables
)
# Node and npm (the Node example, InfluxDB's and PostgreSQL's Node clients in
# the protocol tests), from Debian unless a Node with npm is already installed.
command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
  --no-install-recommends "${missing[@]}" >/dev/null
