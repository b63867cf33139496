#!/usr/bin/env bash
# Builds stratad and runs it on its embedded default: data in ./strata-data,
# gRPC on 127.0.0.1:7878, HTTP (the web console, SQL, line protocol) on
# 127.0.0.1:7879, PostgreSQL on 127.0.0.1:7880. Extra arguments go to stratad
# (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh stratad
exec build/server/stratad "$@"
