# Sourced by the cluster benches that emulate machines with CPU quotas (cluster_scaling.sh,
# cluster_query_scaling.sh). Defines cg_root (a cgroup directory of the cpu controller, made
# here), cg_quota DIR QUOTA_CPUS (a quota for the cgroup DIR, made if missing; "max" for none),
# cg_add DIR PID, and cg_cleanup (moves every process back to the root and removes the
# cgroups). Needs root and cgroup v1's cpu controller (/sys/fs/cgroup/cpu) or cgroup v2.
# STRATA_BENCH_QUOTA_PERIOD_MS (default 100, the kernel's): the quota holds over each such
# period. Within one, a process may run on both cores until its quota is spent, so a query
# shorter than the period runs at full speed unless earlier ones spent it: 10 ms makes a
# 0.5-CPU node 0.5 CPU at the scale of a 10-50 ms query too.
cg_period_us=$((${STRATA_BENCH_QUOTA_PERIOD_MS:-100} * 1000))
if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ]; then
  cg_root=/sys/fs/cgroup/cpu/strata-bench
  cg_top=/sys/fs/cgroup/cpu
  cg_set_quota() { # dir, microseconds per period or -1
    echo "$cg_period_us" >"$1/cpu.cfs_period_us"
    echo "$2" >"$1/cpu.cfs_quota_us"
  }
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ]; then
  cg_root=/sys/fs/cgroup/strata-bench
  cg_top=/sys/fs/cgroup
  echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
  cg_set_quota() { # dir, microseconds per period or -1
    if [ "$2" = -1 ]; then
      echo "max $cg_period_us" >"$1/cpu.max"
    else
      echo "$2 $cg_period_us" >"$1/cpu.max"
    fi
  }
else
  echo "$(basename "$0"): needs root and a writable cgroup cpu controller" >&2
  exit 1
fi
mkdir -p "$cg_root"
cg_quota() { # dir, CPUs (e.g. 0.25) or "max"
  mkdir -p "$1"
  if [ "$2" = max ]; then
    cg_set_quota "$1" -1
  else
    cg_set_quota "$1" "$(awk -v q="$2" -v p="$cg_period_us" 'BEGIN { printf "%d", q * p }')"
  fi
}
cg_add() { echo "$2" >"$1/cgroup.procs"; }
cg_cleanup() {
  for g in "$cg_root"/*/; do
    [ -d "$g" ] || continue
    while read -r p; do echo "$p" >"$cg_top/cgroup.procs" 2>/dev/null || true; done <"$g/cgroup.procs"
    rmdir "$g" 2>/dev/null || true
  done
  rmdir "$cg_root" 2>/dev/null || true
}
