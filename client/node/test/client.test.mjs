// @strata/client against a real stratad, with node's test runner. The server's
// port comes from STRATA_PORT (tests/e2e/client_examples_e2e_test.cc starts it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import strata from '../lib/index.js';

const { Client, StrataError, toDate } = strata;
const port = process.env.STRATA_PORT;
const client = new Client(`127.0.0.1:${port}`, { timeoutMs: 10_000 });
const now = BigInt(Date.now()) * 1_000_000n;

test('catalog', async () => {
  await client.createDatabase('node');
  await client.createDatabase('node', { ifNotExists: true });
  await assert.rejects(client.createDatabase('node'), (e) => e instanceof StrataError && e.code === 'ALREADY_EXISTS');
  await client.createTable('node', 'cpu', { memoryHours: 24 });
  assert.deepEqual(await client.listTables('node'), ['cpu']);
});

test('10,000 records in BulkWriteRecords requests of 1,000 (the default), then queried', async () => {
  const records = [];
  for (let i = 0; i < 10_000; i++) {
    records.push({ dimensions: { region: 'eu', host: `h${i % 50}` }, measureName: 'cpu',
      time: now - 10_000_000_000n + BigInt(i) * 1000n, measures: { usage: i / 10, procs: BigInt(i) } });
  }
  const summary = await client.write('node', 'cpu', records);
  assert.equal(summary.written, 10_000);
  assert.equal(summary.requests, 10);
  assert.deepEqual(summary.rejected, []);
  const [[count, sum]] = await client.query('SELECT count(*), sum(procs) FROM node.cpu WHERE region = ?',
    { parameters: ['eu'] }).all();
  assert.equal(count, 10_000n);
  assert.equal(sum, 49_995_000n);
});

test('rejections keep their position', async () => {
  const writer = client.writer('node', 'cpu', { batchSize: 7 });
  const t = now - 1_000_000_000n;
  await writer.add({ dimensions: { host: 'x' }, measureName: 'cpu', time: t, measures: { usage: 1 } });
  await writer.add({ dimensions: { host: 'x' }, measureName: 'cpu', time: t, measures: { usage: 2 } });
  await writer.add({ dimensions: { host: 'y' }, measureName: 'cpu', time: t, measures: { usage: 'text' } });
  const summary = await writer.close();
  assert.deepEqual(summary.rejected.map((r) => [r.position, r.existingVersion]), [[1, 1n], [2, null]]);
});

test('a rejection in a BulkWriteRecords request keeps its position', async () => {
  await client.createTable('node', 'bulk', { memoryHours: 24 });
  const writer = client.writer('node', 'bulk', { batchSize: 200 });
  const t = now - 2_000_000_000n;
  for (let i = 0; i < 150; i++) {
    await writer.add({ dimensions: { host: 'bulk' }, measureName: 'cpu', time: t - BigInt(i), measures: { usage: 1 } });
  }
  await writer.add({ dimensions: { host: 'bulk' }, measureName: 'cpu', time: t, measures: { usage: 'text' } });
  const summary = await writer.close();
  assert.deepEqual(summary.rejected.map((r) => r.position), [150]);
  assert.deepEqual([summary.requests, summary.written], [1, 150]);
  assert.throws(() => client.writer('node', 'bulk', { batchSize: 10_001 }), RangeError);
});

test('every type round trip, NULLs and nanoseconds', async () => {
  await client.createTable('node', 'types', { memoryHours: 24 });
  const t = now - 60_000_000_123n;
  await client.write('node', 'types', [
    { dimensions: { k: 'full' }, measureName: 'm', time: t,
      measures: { d: 1.25, b: -(2n ** 63n), s: 'é€', f: true, ts: new Date(1709294400000) } },
    { dimensions: { k: 'sparse' }, measureName: 'm', time: t, measures: { d: 2.5, b: null } },
  ]);
  const rows = await client.query('SELECT k, time, d, b, s, f, ts FROM node.types ORDER BY k').all();
  assert.deepEqual(rows, [
    ['full', t, 1.25, -(2n ** 63n), 'é€', true, 1709294400000n * 1_000_000n],
    ['sparse', t, 2.5, null, null, null, null],
  ]);
  assert.equal(toDate(rows[0][6]).toISOString(), '2024-03-01T12:00:00.000Z');
  const [[named]] = await client.query('SELECT d FROM types WHERE k = @k',
    { parameters: { k: 'full' }, database: 'node' }).all();
  assert.equal(named, 1.25);
});

test('arrays, rows and time series', async () => {
  const rows = await client.query("SELECT ARRAY[1, 2], row('a', 2.5), create_time_series(time, d), "
    + "CAST(NULL AS ARRAY(BIGINT)) FROM node.types WHERE k = 'full'").all();
  const t = rows[0][2][0].time;
  assert.deepEqual(rows, [[[1n, 2n], ['a', 2.5], [{ time: t, value: 1.25 }], null]]);
  assert.equal(typeof t, 'bigint');
});

test('dates, times of day and months', async () => {
  const rows = await client.query("SELECT DATE '2024-02-28' + INTERVAL '1' DAY, INTERVAL '14' MONTH, "
    + "TIME '01:00:00', CAST(NULL AS date)").all();
  assert.deepEqual(rows, [['2024-02-29', 14, 3_600_000_000_000n, null]]);
});

test('pages, and cancel', async () => {
  // 10^8 rows: far more than the pages in flight, so the query is surely
  // still running when it is cancelled.
  const result = client.query('SELECT a.procs FROM node.cpu a CROSS JOIN node.cpu b', { pageSize: 1000 });
  const pages = result.pages();
  const first = await pages.next();
  assert.equal(first.value.length, 1000);
  assert.deepEqual(result.columns, ['procs']);
  await result.cancel();
  await assert.rejects(async () => { for await (const _ of pages) { /* drain */ } },
    (e) => e instanceof StrataError && e.code === 'CANCELLED');
});

test('errors', async () => {
  await assert.rejects(client.query('SELECT nope FROM node.cpu').all(),
    (e) => e instanceof StrataError && e.code === 'INVALID_ARGUMENT' && /column "nope" does not exist/.test(e.message));
  client.close();
});
