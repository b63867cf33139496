# Sourced by the benches that measure servers' CPU or wait for them to go quiet.

# CPU ticks (user + system) of the processes PIDS together.
ticks() { local s=0 p; for p in "$@"; do s=$((s + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo $s; }

# Waits (up to two minutes) until the processes PIDS use under 5 % of a CPU each over two
# seconds (an idle cluster node uses 1–2 %, its heartbeats and maintenance): after a load
# settles, RocksDB's compactions go on for a while and take the CPU the first queries were to
# have (under a quota, a 1 ms query measured at 9 ms).
await_quiet() { # pids...
  local hz before after
  hz=$(getconf CLK_TCK)
  for _ in $(seq 60); do
    before=$(ticks "$@")
    sleep 2
    after=$(ticks "$@")
    [ $((after - before)) -le $((hz * 2 * 5 * $# / 100)) ] && return 0
  done
  echo "the servers were still busy two minutes after the load settled" >&2
}
