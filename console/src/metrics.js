// Reading the server's own metrics (/metrics, Prometheus' text format) for
// the operations view. No DOM here.

// [{name, labels: {..}, value}] of the samples in `text`.
export function parseMetrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

// The sum of every sample of `name`.
export function total(samples, name) {
  return samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);
}

// Per table: {database, table, bytes: {tier: n}, rows: {tier: n}, tiered,
// expired, maintained (seconds since the epoch)}.
export function tables(samples) {
  const byTable = new Map();
  const entry = (labels) => {
    const key = `${labels.database}.${labels.table}`;
    if (!byTable.has(key)) {
      byTable.set(key, { database: labels.database, table: labels.table, bytes: {}, rows: {},
        tiered: 0, expired: 0, maintained: null });
    }
    return byTable.get(key);
  };
  for (const s of samples) {
    if (!s.labels.table) continue;
    if (s.name === 'strata_table_bytes') entry(s.labels).bytes[s.labels.tier] = s.value;
    else if (s.name === 'strata_table_entries') entry(s.labels).rows[s.labels.tier] = s.value;
    else if (s.name === 'strata_table_rows_tiered_total') entry(s.labels).tiered = s.value;
    else if (s.name === 'strata_table_rows_expired_total') entry(s.labels).expired = s.value;
    else if (s.name === 'strata_table_last_maintenance_timestamp_seconds') entry(s.labels).maintained = s.value;
  }
  return [...byTable.values()].sort((a, b) => `${a.database}.${a.table}`.localeCompare(`${b.database}.${b.table}`));
}

// Per-second rate of a counter between two readings.
export function rate(before, after, seconds) {
  if (before === null || seconds <= 0) return null;
  return Math.max(0, (after - before) / seconds);
}
