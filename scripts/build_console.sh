#!/usr/bin/env bash
# Builds the web console (console/) into console/dist, which stratad embeds:
# its npm packages as the lockfile pins them (npm ci), then the bundle
# (console/build.mjs, esbuild). Skips what is up to date. Without npm it says
# so and leaves dist/ as it is (stratad then serves a page saying how to
# build the console). Usage: scripts/build_console.sh
set -euo pipefail
cd "$(dirname "$0")/../console"
if ! command -v npm >/dev/null; then
  echo "console: npm is missing (scripts/deps.sh installs it); the console is not built" >&2
  exit 0
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
fi
if [ ! -f dist/app.js ] || [ -n "$(find src build.mjs package-lock.json -newer dist/app.js -print -quit)" ]; then
  node build.mjs >/dev/null
fi
