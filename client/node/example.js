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
    let rows = 0;
    const stream = query.Query({ query_string: sql, page_size: 4 }, conn.metadata);
    stream.on('data', (response) => {
      if (response.metadata) {
        columns = response.metadata.columns.map((c) => c.name);
        console.log(`query ${response.metadata.query_id}: columns ${columns.join(', ')}`);
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
