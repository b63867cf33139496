#!/bin/sh
# The compose file's `demo` service: loads an hour of sample CPU metrics for 10 hosts with the
# strata CLI, then runs a query. Safe to run again: it only adds a new hour of points.
set -eu
: "${STRATA_HOST:=stratad}"
export STRATA_HOST
# The server's first admin token, from its volume (mounted read-only here).
if [ -z "${STRATA_TOKEN:-}" ] && [ -r /var/lib/strata/admin.token ]; then
  STRATA_TOKEN=$(cat /var/lib/strata/admin.token)
  export STRATA_TOKEN
fi

# podman-compose does not wait for `condition: service_healthy`; wait here as well.
i=0
until strata health >/dev/null 2>&1; do
  i=$((i + 1))
  [ "$i" -lt 60 ] || { echo "demo: stratad at $STRATA_HOST is not healthy" >&2; exit 1; }
  sleep 1
done

strata db create demo --description "sample data from the demo service" 2>/dev/null || true
strata table create demo cpu --memory 24h --magnetic 30d 2>/dev/null || true

file=$(mktemp)
now=$(date +%s)
awk -v now="$now" 'BEGIN {
  srand(42)
  print "time,host,region,usage_user,usage_system,procs:bigint"
  for (m = 59; m >= 0; m--)
    for (h = 0; h < 10; h++)
      printf "%.0f000,host-%d,%s,%.2f,%.2f,%d\n", now - m * 60, h, (h < 5 ? "eu-west" : "us-east"),
             20 + h * 5 + rand() * 10, 5 + rand() * 5, 100 + int(rand() * 50)
}' >"$file"
strata import demo cpu "$file" --format csv --progress none
rm -f "$file"

strata query --format table "SELECT region, host, round(avg(usage_user), 2) AS avg_user,
  max(usage_user) AS max_user, count(*) AS points
  FROM demo.cpu WHERE time > ago(1h) GROUP BY region, host ORDER BY region, host"
