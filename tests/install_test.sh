#!/usr/bin/env bash
# `cmake --install` (what scripts/install.sh runs) lays out what it promises: both binaries, a
# systemd unit pointing at them, and a default configuration stratad accepts.
# Usage: tests/install_test.sh BUILD_DIR
set -euo pipefail
build=$1
dest=$(mktemp -d)
# Waits for stratad to end before removing its data directory: it writes files while it
# stops, and rm -rf of a directory being written fails ("Directory not empty").
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi; rm -rf "$dest"' EXIT
pid=
cmake --install "$build" --prefix "$dest" >/dev/null
for f in bin/stratad bin/strata lib/systemd/system/stratad.service etc/strata/stratad.toml; do
  [ -e "$dest/$f" ] || { echo "install_test: $f was not installed" >&2; exit 1; }
done
grep -q '^ExecStart=.*/bin/stratad --config .*/strata/stratad.toml$' \
  "$dest/lib/systemd/system/stratad.service" || { echo "install_test: bad ExecStart" >&2; exit 1; }
"$dest/bin/strata" --version | grep -q '^strata ' || { echo "install_test: strata --version" >&2; exit 1; }
# The default configuration starts a server (its paths and ports overridden by flags).
"$dest/bin/stratad" --config "$dest/etc/strata/stratad.toml" --data-dir "$dest/data" \
  --listen 127.0.0.1:0 --http-listen 127.0.0.1:0 --pg-listen 127.0.0.1:0 2>"$dest/log" &
pid=$!
for _ in $(seq 100); do
  grep -q "serving on port" "$dest/log" && exit 0
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
echo "install_test: stratad did not start with the default configuration:" >&2
cat "$dest/log" >&2
exit 1
