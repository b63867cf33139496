#!/usr/bin/env bash
# The client packages must be made from proto/strata/v1 as it is now: the
# Python package's generated stubs (client/python/strata/v1; regenerate with
# `cmake --build build --target strata_python_package_stubs`) and the Node
# package's copies of the .proto files it loads (client/node/proto/strata/v1;
# `cp proto/strata/v1/*.proto client/node/proto/strata/v1/`).
set -euo pipefail
src=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protoc -I "$src/proto" --python_out="$out" --grpc_out="$out" \
  --plugin=protoc-gen-grpc=/usr/bin/grpc_python_plugin "$src"/proto/strata/v1/*.proto
if ! diff -r -x __init__.py -x __pycache__ "$out/strata/v1" "$src/client/python/strata/v1"; then
  echo "FAIL: client/python/strata/v1 was not generated from proto/strata/v1 as it is now;" \
       "run: cmake --build build --target strata_python_package_stubs" >&2
  exit 1
fi
if ! diff -r "$src/proto/strata/v1" "$src/client/node/proto/strata/v1"; then
  echo "FAIL: client/node/proto/strata/v1 differs from proto/strata/v1;" \
       "run: cp proto/strata/v1/*.proto client/node/proto/strata/v1/" >&2
  exit 1
fi
echo "client packages: made from proto/strata/v1 as it is"
