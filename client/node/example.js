#!/usr/bin/env node
// Strata from Node: create a database and table, write one batch of records
// that share common attributes, and stream a query's pages as they arrive.
// The .proto files are loaded at run time with @grpc/proto-loader; no code
// generation step. Run: node example.js --port 7878
// Against a server with TLS and tokens (docs/security.md), add --tls-ca CA.pem
// and --token TOKEN (or set STRATA_TLS_CA and STRATA_TOKEN).
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');

function parseArgs(argv) {
  const args = {
    host: '127.0.0.1', port: 7878, database: 'example', table: 'cpu', hosts: 10,
    'tls-ca': process.env.STRATA_TLS_CA || '', token: process.env.STRATA_TOKEN || '',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown flag ${argv[i]}`);
    args[key] = typeof args[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return args;
}

function loadServices() {
  const definition = protoLoader.loadSync(
    ['strata/v1/catalog.proto', 'strata/v1/write.proto', 'strata/v1/query.proto'],
    // longs as strings keep int64 exact; enums as their names.
    { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: false, oneofs: true });
  return grpc.loadPackageDefinition(definition).strata.v1;
}

// TLS when a CA is given; the token goes with every call (also over
// plaintext on loopback, where gRPC's call credentials would refuse to).
function connection(args) {
  const credentials = args['tls-ca']
    ? grpc.credentials.createSsl(fs.readFileSync(args['tls-ca']))
    : grpc.credentials.createInsecure();
  const metadata = new grpc.Metadata();
  if (args.token) metadata.add('authorization', `Bearer ${args.token}`);
  return { address: `${args.host}:${args.port}`, credentials, metadata };
}

// Promise wrapper for a unary call.
function call(client, method, request, metadata) {
  return new Promise((resolve, reject) =>
    client[method](request, metadata, (error, response) => (error ? reject(error) : resolve(response))));
}

async function createIfMissing(client, method, request, metadata) {
  try {
    await call(client, method, request, metadata);
  } catch (error) {
    if (error.code !== grpc.status.ALREADY_EXISTS) throw error;
  }
}

// The JavaScript value of a result Datum (null for NULL).
function datumValue(datum) {
  const kind = datum.value;
  return kind === undefined || kind === 'null_value' ? null : datum[kind];
}

// The values of one column of a columnar page (null for NULL); int64s as strings.
function columnValues(column, type, rows) {
  let values;
  if (type === 'SCALAR_TYPE_VARCHAR') {
    values = [];
    let start = 0;
    for (const end of column.string_ends || []) {
      values.push(column.string_data.toString('utf8', start, end));
      start = end;
    }
  } else if (type === 'SCALAR_TYPE_DOUBLE') {
    values = column.doubles || [];
  } else if (type === 'SCALAR_TYPE_BOOLEAN') {
    values = column.booleans || [];
  } else if (['SCALAR_TYPE_BIGINT', 'SCALAR_TYPE_TIMESTAMP', 'SCALAR_TYPE_INTERVAL_DAY_TO_SECOND'].includes(type)) {
    values = column.ints || []; // timestamps and intervals: nanoseconds
  } else {
    values = new Array(rows).fill(null);
  }
  const nulls = column.nulls || Buffer.alloc(0); // bit i % 8 of byte i / 8 marks a NULL
  return values.map((v, i) => (nulls.length && (nulls[i >> 3] >> (i & 7)) & 1 ? null : v));
}

async function writeBatch(v1, conn, args) {
  const write = new v1.WriteService(conn.address, conn.credentials);
  const now = Date.now();
  // Shared by every record: region, measure name, MULTI type, time unit.
  const common = {
    dimensions: [{ name: 'region', value: 'eu-west' }],
    measure_name: 'cpu',
    measure_value_type: 'MEASURE_VALUE_TYPE_MULTI',
    time_unit: 'TIME_UNIT_MILLISECONDS',
  };
  const records = [];
  for (let i = 0; i < args.hosts; i++) {
    records.push({
      dimensions: [{ name: 'host', value: `web-${i}` }],
      time: String(now - i * 1000),
      measure_values: [
        { name: 'usage', value: { double_value: 10 + i } },
        { name: 'procs', value: { bigint_value: String(100 + i) } },
      ],
    });
  }
  const response = await call(write, 'WriteRecords', {
    database_name: args.database, table_name: args.table, common_attributes: common, records,
  }, conn.metadata);
  const rejected = response.rejected_records || [];
  console.log(`ingested ${response.records_ingested.total} records, ${rejected.length} rejected`);
  for (const r of rejected) console.log(`  record ${r.record_index}: ${r.reason}`);
  write.close();
  return rejected.length === 0;
}

function streamQuery(v1, conn, sql) {
  const query = new v1.QueryService(conn.address, conn.credentials);
  return new Promise((resolve, reject) => {
    let columns = [];
    let types = [];
    let rows = 0;
    // columnar: each page is a typed array per column (ColumnPage), smaller
    // and cheaper to decode than a Datum per cell.
    const stream = query.Query({ query_string: sql, page_size: 4, columnar: true }, conn.metadata);
    stream.on('data', (response) => {
      if (response.metadata) {
        columns = response.metadata.columns.map((c) => c.name);
        types = response.metadata.columns.map((c) => c.type.scalar_type);
        console.log(`query ${response.metadata.query_id}: columns ${columns.join(', ')}`);
      } else if (response.column_page) {
        const page = response.column_page;
        const count = page.row_count || 0;
        console.log(`page of ${count} rows`);
        const values = (page.columns || []).map((c, i) => columnValues(c, types[i], count));
        for (let r = 0; r < count; r++) {
          console.log('  ' + columns.map((c, i) => `${c}=${values[i][r]}`).join(' '));
          rows++;
        }
      } else if (response.page) {
        console.log(`page of ${response.page.rows.length} rows`);
        for (const row of response.page.rows) {
          const values = row.data.map(datumValue);
          console.log('  ' + columns.map((c, i) => `${c}=${values[i]}`).join(' '));
          rows++;
        }
      } else if (response.statistics) {
        const s = response.statistics;
        console.log(`rows returned: ${s.rows_returned}, scanned: ${s.rows_scanned}`);
      }
    });
    stream.on('error', reject);
    stream.on('end', () => {
      query.close();
      resolve(rows);
    });
  });
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const conn = connection(args);
  const v1 = loadServices();
  const catalog = new v1.CatalogService(conn.address, conn.credentials);
  await createIfMissing(catalog, 'CreateDatabase', { database_name: args.database }, conn.metadata);
  await createIfMissing(catalog, 'CreateTable', {
    database_name: args.database,
    table_name: args.table,
    retention_properties: { memory_store_retention_hours: 24, magnetic_store_retention_days: 365 },
  }, conn.metadata);
  catalog.close();
  if (!(await writeBatch(v1, conn, args))) return 1;
  const rows = await streamQuery(v1, conn,
    `SELECT host, region, usage, procs FROM ${args.database}.${args.table} ` +
    'WHERE time > ago(1h) ORDER BY host');
  return rows >= args.hosts ? 0 : 1;
}

main().then((code) => process.exit(code)).catch((error) => {
  console.error(`error: ${error.details || error.message}`);
  process.exit(1);
});
