#!/usr/bin/env bash
# The Python package's generated stubs (client/python/strata/v1) must be what
# proto/strata/v1 generates now: a proto change without regenerating them
# fails here. Regenerate with: cmake --build build --target strata_python_package_stubs
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
echo "python stubs: generated from proto/strata/v1"
