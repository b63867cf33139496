#!/usr/bin/env bash
# Writes a TSBS-like import file to stdout: 1000 hosts, one row per host every
# 10 s ending now, 2 dimensions (host, region) and 10 double measures.
# Usage: bench/gen_import_file.sh ROWS csv|lp > FILE
set -euo pipefail
rows=$1 format=$2
now=$(date +%s)
awk -v rows="$rows" -v now="$now" -v format="$format" 'BEGIN {
  srand(1)
  if (format == "csv") print "time,host,region,usage_user,usage_system,usage_idle,usage_nice,usage_iowait,usage_irq,usage_softirq,usage_steal,usage_guest,usage_guest_nice"
  for (i = 0; i < rows; i++) {
    h = i % 1000; t = now - 86000 + int(i / 1000) * 10 % 86000
    line = ""
    for (f = 0; f < 10; f++) line = line sprintf("%s%.2f", (f ? "," : ""), rand() * 100)
    if (format == "csv") printf "%.0f,host_%d,region_%d,%s\n", t * 1000, h, h % 10, line
    else {
      split(line, v, ",")
      printf "cpu,host=host_%d,region=region_%d usage_user=%s,usage_system=%s,usage_idle=%s,usage_nice=%s,usage_iowait=%s,usage_irq=%s,usage_softirq=%s,usage_steal=%s,usage_guest=%s,usage_guest_nice=%s %.0f000000000\n", h, h % 10, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], t
    }
  }
}'
