// Writes 500 points with InfluxDB's own JavaScript client through Strata's
// /api/v2/write (gzip, batching, `Authorization: Token`), as a user's
// InfluxDB code would. Usage: influx_write.mjs URL TOKEN BUCKET [--bad]
// With --bad it writes one malformed point and exits non-zero with the error.
import { InfluxDB, Point } from '@influxdata/influxdb-client';

const [url, token, bucket, mode] = process.argv.slice(2);
const writeApi = new InfluxDB({ url, token, timeout: 10000 }).getWriteApi('any-org', bucket, 'ms', {
  batchSize: 120,
  gzipThreshold: 1, // gzip every request body
  maxRetries: 0,
});

try {
  if (mode === '--bad') {
    writeApi.writeRecord('system,host=h1 load=notanumber');
  } else {
    const start = Date.now() - 60_000;
    for (let i = 0; i < 500; i++) {
      writeApi.writePoint(
        new Point('system')
          .tag('host', `h${i % 5}`)
          .intField('load', i)
          .floatField('ratio', i / 500)
          .stringField('status', 'ok')
          .timestamp(new Date(start + i)),
      );
    }
  }
  await writeApi.close();
  console.log('wrote 500 points');
} catch (e) {
  console.error(`write failed: ${e.statusCode} ${e.body ?? e.message}`);
  process.exit(1);
}
