#!/bin/sh
# deploy/docker-compose.yml: compose waits longer after SIGTERM
# (stop_grace_period) than stratad lets in-flight calls run
# (STRATA_SHUTDOWN_GRACE_SECONDS), so stratad's own shutdown is never cut
# short by a kill.
set -eu
compose="$(dirname "$0")/../../deploy/docker-compose.yml"
grace=$(sed -n 's/^ *STRATA_SHUTDOWN_GRACE_SECONDS: *"\([0-9]*\)".*/\1/p' "$compose")
stop=$(sed -n 's/^ *stop_grace_period: *\([0-9]*\)s.*/\1/p' "$compose" | head -n 1)
if [ -z "$grace" ] || [ -z "$stop" ]; then
  echo "FAIL: $compose sets no STRATA_SHUTDOWN_GRACE_SECONDS or stop_grace_period"; exit 1
fi
if [ "$stop" -le "$grace" ]; then
  echo "FAIL: stop_grace_period ${stop}s is not above STRATA_SHUTDOWN_GRACE_SECONDS ${grace}"; exit 1
fi
echo "ok: stratad's grace ${grace}s, compose's ${stop}s"
