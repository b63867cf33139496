// Reading /metrics for the operations view (src/metrics.js), without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMetrics, rate, tables, total } from '../src/metrics.js';

const TEXT = `# HELP strata_records_ingested_total Records ingested.
# TYPE strata_records_ingested_total counter
strata_records_ingested_total{tier="magnetic"} 4
strata_records_ingested_total{tier="memory"} 180
strata_table_bytes{database="demo",table="cpu",tier="memory"} 10088
strata_table_bytes{database="demo",table="cpu",tier="magnetic"} 0
strata_table_entries{database="demo",table="cpu",tier="memory"} 180
strata_table_rows_tiered_total{database="demo",table="cpu"} 7
strata_table_last_maintenance_timestamp_seconds{database="demo",table="cpu"} 1795885039.2
strata_build_info{version="0.1.0",note="a \\"quoted\\" label"} 1
strata_uptime_seconds 333.5
`;

test('samples keep their labels and values', () => {
  const samples = parseMetrics(TEXT);
  assert.equal(samples.length, 9);
  assert.deepEqual(samples[7], { name: 'strata_build_info',
    labels: { version: '0.1.0', note: 'a "quoted" label' }, value: 1 });
  assert.equal(total(samples, 'strata_records_ingested_total'), 184);
  assert.equal(total(samples, 'strata_uptime_seconds'), 333.5);
});

test('storage is gathered per table and tier', () => {
  assert.deepEqual(tables(parseMetrics(TEXT)), [{
    database: 'demo', table: 'cpu', bytes: { memory: 10088, magnetic: 0 }, rows: { memory: 180 },
    tiered: 7, expired: 0, maintained: 1795885039.2,
  }]);
});

test('a rate needs an earlier reading and never goes below zero', () => {
  assert.equal(rate(null, 10, 5), null);
  assert.equal(rate(10, 60, 5), 10);
  assert.equal(rate(60, 0, 5), 0);  // a restarted server's counters
});
