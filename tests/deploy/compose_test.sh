#!/usr/bin/env bash
# Builds the image and runs deploy/docker-compose.yml for real with podman: waits for healthy,
# checks that TLS and tokens are on (a call without a token or without TLS is refused), writes
# and queries through the published port with the host's CLI, restarts the container, takes an
# online backup, wipes the data volume and restores it
# and checks the data survived, runs the demo profile, then tears everything down.
# Needs root (rootful podman). Usage: tests/deploy/compose_test.sh   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../.."
# Not "root": container-env.sh (sourced below) uses that name for its base image's rootfs.
project_root=$(pwd)
started=$(date +%s)

# No registry is reachable here: container-env.sh installs podman and makes a local
# debian:bookworm-slim base image. It lives beside the project (../shared/tools).
env_script=${STRATA_CONTAINER_ENV:-}
for candidate in "$project_root/../shared/tools/container-env.sh" /work/shared/tools/container-env.sh; do
  [ -n "$env_script" ] || { [ -f "$candidate" ] && env_script=$candidate; }
done
[ -n "$env_script" ] || { echo "compose_test: container-env.sh not found; set STRATA_CONTAINER_ENV" >&2; exit 1; }
# shellcheck source=/dev/null
source "$env_script"
set -euo pipefail

cli=$project_root/build/client/strata
[ -x "$cli" ] || scripts/build.sh strata >/dev/null

project=strata-ci-$$
export STRATA_VERSION=ci-$$
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
export STRATA_PORT=$(free_port) STRATA_HTTP_PORT=$(free_port) STRATA_PG_PORT=$(free_port)
compose=(podman-compose -p "$project" -f deploy/docker-compose.yml)

cleanup() {
  rm -rf "${secrets:-/nonexistent}"
  "${compose[@]}" down -v >/dev/null 2>&1 || true
  podman volume rm -f "${project}_strata-data" >/dev/null 2>&1 || true
  podman rmi -f "localhost/strata:$STRATA_VERSION" >/dev/null 2>&1 || true
  container_cleanup >/dev/null 2>&1 || true
}
trap cleanup EXIT

step() { echo "compose_test: $* ($(($(date +%s) - started)) s)"; }
fail() { echo "compose_test: FAIL: $*" >&2; "${compose[@]}" logs stratad >&2 || true; exit 1; }

step "building the image"
podman build -q -t "localhost/strata:$STRATA_VERSION" -f Dockerfile . >/dev/null
build_seconds=$(($(date +%s) - started))

step "starting the compose file on 127.0.0.1:$STRATA_PORT"
"${compose[@]}" up -d stratad >/dev/null
container_wait_healthy stratad 90 || fail "stratad did not become healthy"
container=$(podman ps -q --filter label=com.docker.compose.service=stratad | head -1)
[ "$(podman exec "$container" id -un)" = strata ] || fail "stratad does not run as the strata user"

step "checking TLS and tokens"
# The one-time step deploy/README.md documents: take the CA and the first admin token out.
secrets=$(mktemp -d)
podman exec "$container" cat /var/lib/strata-tls/ca.pem >"$secrets/ca.pem" ||
  fail "the entrypoint made no CA"
podman exec "$container" cat /var/lib/strata/admin.token >"$secrets/admin.token" ||
  fail "stratad wrote no admin token"
[ "$(podman exec "$container" stat -c %a /var/lib/strata/admin.token)" = 600 ] ||
  fail "the admin token file is not private"
anonymous=$("$cli" --port "$STRATA_PORT" --tls-ca "$secrets/ca.pem" db list 2>&1) &&
  fail "an unauthenticated call was accepted: $anonymous"
echo "$anonymous" | grep -q "requires a token" || fail "unexpected refusal: $anonymous"
plaintext=$("$cli" --port "$STRATA_PORT" --token "$(cat "$secrets/admin.token")" db list 2>&1) &&
  fail "a plaintext call was accepted: $plaintext"

strata() {
  STRATA_TLS_CA="$secrets/ca.pem" STRATA_TOKEN="$(cat "$secrets/admin.token")" \
    "$cli" --port "$STRATA_PORT" "$@"
}
step "scraping GET /metrics over HTTPS with a token"
scrape() { # TOKEN: prints the HTTP status, then the body
  python3 - "$secrets/ca.pem" "$STRATA_HTTP_PORT" "$1" <<'PY'
import ssl, sys, urllib.error, urllib.request
ca, port, token = sys.argv[1:4]
request = urllib.request.Request(f"https://127.0.0.1:{port}/metrics")
if token:
    request.add_header("Authorization", f"Bearer {token}")
try:
    with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca)) as r:
        print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code)
PY
}
[ "$(scrape "" | head -1)" = 401 ] || fail "GET /metrics without a token was not refused"
metrics=$(scrape "$(cat "$secrets/admin.token")")
grep -q '^strata_build_info' <<<"$metrics" || fail "GET /metrics gave no metrics"

step "writing and querying through the published port"
strata health >/dev/null || fail "the host cannot reach the health service"
strata db create deploy >/dev/null
strata table create deploy cpu --memory 24h >/dev/null
now=$(date +%s)
for i in 1 2 3; do
  strata write deploy cpu -D host=web-$i -m usage=$i.5 --time $((now - i))000 >/dev/null
done
count() { strata query "SELECT count(*) FROM deploy.cpu" --format csv | tail -1; }
[ "$(count)" = 3 ] || fail "expected 3 rows before the restart, got $(count)"

step "line protocol over HTTPS and psql over TLS through the published ports"
lp=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$secrets/ca.pem" \
  -H "Authorization: Token $(cat "$secrets/admin.token")" \
  -XPOST "https://localhost:$STRATA_HTTP_PORT/api/v2/write?bucket=deploy&precision=s" \
  --data-binary "cpu,host=web-9 usage=9.5 $now") || fail "POST /api/v2/write failed"
[ "$lp" = 204 ] || fail "POST /api/v2/write answered $lp"
psql_out=$(PGPASSWORD=$(cat "$secrets/admin.token") PGCONNECT_TIMEOUT=10 psql -X -A -t \
  "host=localhost port=$STRATA_PG_PORT dbname=strata user=deploy sslmode=verify-full sslrootcert=$secrets/ca.pem" \
  -c "SELECT count(*) FROM deploy.cpu") || fail "psql could not query: $psql_out"
[ "$psql_out" = 4 ] || fail "psql counted $psql_out rows, expected 4"
strata query "DELETE FROM deploy.cpu WHERE host = 'web-9'" >/dev/null || fail "could not delete the LP row"

step "the web console over HTTPS"
page=$(curl -sS --cacert "$secrets/ca.pem" "https://localhost:$STRATA_HTTP_PORT/") ||
  fail "GET / failed"
case "$page" in
  *"<title>Strata console</title>"*) ;;
  *) fail "the image serves no console at / (was console/dist built before the image?)" ;;
esac

step "restarting the container"
podman restart "$container" >/dev/null
container_wait_healthy stratad 90 || fail "stratad did not come back healthy after the restart"
[ "$(count)" = 3 ] || fail "data did not survive the restart: $(count) rows"
sum=$(strata query "SELECT sum(measure_value::double) FROM deploy.cpu" --format csv | tail -1)
[ "$sum" = 7.5 ] || fail "expected the sum 7.5 after the restart, got $sum"
# The image carries the IANA time zones (tzdata) at_timezone reads.
berlin=$(strata query "SELECT at_timezone(TIMESTAMP '2024-07-01 12:00:00', 'Europe/Berlin')" --format csv | tail -1)
[ "$berlin" = "2024-07-01 14:00:00.000000000" ] || fail "at_timezone in the image answered $berlin"
# Captured first: `podman logs | grep -q` fails under pipefail whenever grep
# exits on its match while podman is still writing (SIGPIPE).
container_logs=$(podman logs "$container" 2>&1)
grep -q 'stratad stopped cleanly' <<<"$container_logs" ||
  fail "stratad did not log a graceful stop on SIGTERM"

step "running the demo profile"
# podman-compose 1.0.3 has no --profile; naming the service is enough for `run`.
demo_out=$("${compose[@]}" run --rm demo 2>&1) || fail "demo failed: $demo_out"
echo "$demo_out" | grep -q "imported 600 records" || fail "demo did not import: $demo_out"
echo "$demo_out" | grep -q "(10 rows)" || fail "demo query did not print 10 rows: $demo_out"

step "backing up online, wiping the data volume, restoring"
strata backup create --to /var/lib/strata-backups >/dev/null || fail "the backup failed"
strata backup verify /var/lib/strata-backups >/dev/null || fail "the backup does not verify"
"${compose[@]}" down >/dev/null
podman volume rm "${project}_strata-data" >/dev/null || fail "could not remove the data volume"
# podman-compose 1.0.3's `run` fails on the service's exec-form healthcheck ("unknown
# healthcheck test type"): a plain one-shot container on the same volumes, as deploy/README.md
# documents for podman.
restore_out=$(podman run --rm -v "${project}_strata-data:/var/lib/strata" \
  -v "${project}_strata-tls:/var/lib/strata-tls" -v "${project}_strata-backups:/var/lib/strata-backups" \
  "localhost/strata:$STRATA_VERSION" --restore-from /var/lib/strata-backups --restore-only 2>&1) ||
  fail "the restore failed: $restore_out"
echo "$restore_out" | grep -q "restored backup 1" || fail "the restore said: $restore_out"
"${compose[@]}" up -d stratad >/dev/null
container_wait_healthy stratad 90 || fail "stratad did not come back healthy after the restore"
[ "$(count)" = 3 ] || fail "the restore did not bring the data back: $(count) rows"

step "tearing down"
"${compose[@]}" down -v >/dev/null
[ -z "$(podman ps -aq --filter label=com.docker.compose.project="$project")" ] || fail "containers left behind"
step "passed (image build ${build_seconds} s)"
