# Sourced by the cluster query benches (cluster_query_scaling.sh, cluster_small_reads.sh):
# TSBS-like data as line protocol, loaded through a node and settled. Needs a `strata`
# function (the CLI) and STRATA_BENCH_PARTITION_KEY (default `measure`) for the table's key.

source bench/process_cpu.sh

# HOSTS × 12 h of rows at 10 s ending at END (seconds since the epoch; default now), 10
# doubles a row, dimensions hostname and region. Benches that compare runs minutes apart pass
# the same END to query_bench's --now, so that every run's ago(...) windows read the same rows.
generate() { # hosts [end]
  awk -v hosts="$1" -v now="${2:-$(date +%s)}" 'BEGIN {
    srand(1)
    for (t = now - 43200 + 10; t <= now; t += 10)
      for (h = 0; h < hosts; h++) {
        printf "cpu,hostname=host_%d,region=region_%d ", h, h % 10
        split("usage_user usage_system usage_idle usage_nice usage_iowait usage_irq usage_softirq usage_steal usage_guest usage_guest_nice", f, " ")
        for (i = 1; i <= 10; i++) printf "%s%s=%.2f", (i > 1 ? "," : ""), f[i], rand() * 100
        printf " %d000000000\n", t
      }
  }'
}

# Waits until no node's log shows a new tiering run of benchmark.cpu for two checks running.
settle() { # log files...
  local seen=-1 now
  while true; do
    now=$(cat "$@" | grep -c 'tiering "benchmark"."cpu"' || true)
    [ "$now" = "$seen" ] && return
    seen=$now
    sleep 12
  done
}

# One stratad at PORT over DIR/single, FILE loaded and settled; its PID in `single`.
start_single() { # port, dir, file
  build/server/stratad --data-dir "$2/single" --listen "127.0.0.1:$1" --http-listen '' \
    --pg-listen '' --maintenance-interval-seconds 5 2>"$2/single.log" &
  single=$!
  for _ in $(seq 50); do strata -p "$1" health >/dev/null 2>&1 && break; sleep 0.1; done
  load "$1" "$3"
  settle "$2/single.log"
  await_quiet "$single"
}

# benchmark.cpu created through the node at PORT and FILE imported into it.
load() { # port, file
  strata -p "$1" db create benchmark >/dev/null
  strata -p "$1" table create benchmark cpu --memory 24h \
    --partition-key "${STRATA_BENCH_PARTITION_KEY:-measure}" >/dev/null
  strata -p "$1" import benchmark cpu "$2" --format lp --parallel 4 --progress none >/dev/null
}

# Waits (up to a minute) until the shards' leads are spread evenly over the nodes of the
# cluster served at port $1 (none leading two more than another): a node that came up first
# leads every shard until the others' first choices are handed back, one a node every few
# seconds, and a query through a node leading every shard reads only itself.
await_spread_leads() {
  local nodes spread
  for _ in $(seq 120); do
    nodes=$(strata -p "$1" query --format csv \
      'SELECT count(*) FROM "system"."cluster_nodes"' 2>/dev/null | tail -1)
    spread=$(strata -p "$1" query --format csv \
      'SELECT count(*), max(c) - min(c) FROM (SELECT leader, count(*) AS c
         FROM "system"."cluster_shards" WHERE node_id = leader GROUP BY leader)' \
      2>/dev/null | tail -1)
    [ -n "$nodes" ] && [ "$spread" = "$nodes,0" -o "$spread" = "$nodes,1" ] && return 0
    sleep 0.5
  done
  echo "the leads did not spread evenly over the nodes in a minute" >&2
  return 1
}
