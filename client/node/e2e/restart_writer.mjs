// Writes 10,000 records while the test restarts the server (after printing
// "writing while the server restarts"): the Writer retries and every record
// must be stored exactly once. Usage: restart_writer.mjs PORT
import strata from '../lib/index.js';

const client = new strata.Client(`127.0.0.1:${process.argv[2]}`, { timeoutMs: 10_000 });
await client.createDatabase('noderestart', { ifNotExists: true });
await client.createTable('noderestart', 'tbl', { memoryHours: 24, ifNotExists: true });
const base = BigInt(Date.now() - 3_600_000) * 1_000_000n;
// Requests of 100, so that many of them are on the way while the server restarts.
const writer = client.writer('noderestart', 'tbl', { batchSize: 100, inFlight: 2, maxRetries: 12, backoffMs: 200 });
for (let i = 0; i < 10_000; i++) {
  if (i === 2_000) {
    await writer.flush();
    console.log('writing while the server restarts');
  }
  if (i > 2_000 && i % 100 === 0) await new Promise((r) => setTimeout(r, 50));
  await writer.add({ dimensions: { host: `h${i % 10}` }, measureName: 'm', time: base + BigInt(i), measures: { i: BigInt(i) } });
}
const summary = await writer.close();
console.log(`written ${summary.written}, rejected ${summary.rejected.length}, retries ${summary.retries}`);
const rows = await client.query('SELECT count(*), count(DISTINCT i), sum(i) FROM noderestart.tbl').all();
console.log(`stored ${rows[0].join(' ')}`);
client.close();
