'use strict';
// @strata/client: Strata from Node. A Client for the catalog, a batching
// Writer with retries, and queries as async iterators of rows with native
// values (BIGINT and TIMESTAMP as BigInt; TIMESTAMP is nanoseconds since the
// epoch, `toDate()` turns it into a Date). The .proto files in proto/ are
// loaded at run time (@grpc/proto-loader); a test checks they are
// proto/strata/v1's.
const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.join(__dirname, '..', 'proto');
const definition = protoLoader.loadSync(
  ['strata/v1/catalog.proto', 'strata/v1/write.proto', 'strata/v1/query.proto'],
  { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, oneofs: true, defaults: false },
);
const v1 = grpc.loadPackageDefinition(definition).strata.v1;

// WriteRecords takes Timestream's 100 records; BulkWriteRecords the same request with up to
// 10,000, and a request's fixed cost (the call, the server's group commit) was about half of
// the server's CPU per row at 100.
const WRITE_RECORDS_LIMIT = 100;
const MAX_RECORDS_PER_REQUEST = 10_000;
// Statuses after which sending the same write again can succeed (a write
// repeated with the same values and version changes nothing).
const RETRYABLE_WRITE = new Set([
  grpc.status.UNAVAILABLE, grpc.status.RESOURCE_EXHAUSTED, grpc.status.CANCELLED,
  grpc.status.DEADLINE_EXCEEDED,
]);

// grpc-js reports a call whose HTTP/2 stream the connection reset as INTERNAL with this text
// (a restarting server closes its connections with the calls that were still on the way). No
// answer came, so sending again is as safe as after UNAVAILABLE; a server's own INTERNAL is not.
const STREAM_RESET = /^Received RST_STREAM with code \d+/;

function isRetryableWrite(error) {
  return RETRYABLE_WRITE.has(error.code)
    || (error.code === grpc.status.INTERNAL && STREAM_RESET.test(error.details || ''));
}

class StrataError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = 'StrataError';
    this.code = code; // 'INVALID_ARGUMENT', 'NOT_FOUND', ...
    this.details = message;
  }

  static fromGrpc(error) {
    const name = Object.keys(grpc.status).find((k) => grpc.status[k] === error.code) || String(error.code);
    return new StrataError(name, error.details || error.message);
  }
}

/** Nanoseconds since the epoch (BigInt) of a Date, a BigInt (ns) or a number (ms). */
function toNanos(time) {
  if (typeof time === 'bigint') return time;
  if (time instanceof Date) return BigInt(time.getTime()) * 1_000_000n;
  if (typeof time === 'number' && Number.isFinite(time)) return BigInt(Math.round(time * 1e6));
  throw new TypeError(`${time} is not a time: use a Date, BigInt nanoseconds or number milliseconds`);
}

/** A Date (milliseconds) of nanoseconds since the epoch. */
function toDate(nanos) {
  return new Date(Number(BigInt(nanos) / 1_000_000n));
}

function isMissing(value) {
  return value === null || value === undefined || (typeof value === 'number' && Number.isNaN(value));
}

/** [MeasureValueType, MeasureValue] of a JavaScript value. */
function measureValue(value) {
  if (typeof value === 'boolean') return ['MEASURE_VALUE_TYPE_BOOLEAN', { boolean_value: value }];
  if (typeof value === 'bigint') return ['MEASURE_VALUE_TYPE_BIGINT', { bigint_value: value.toString() }];
  // A number is DOUBLE even when whole: BIGINT is BigInt (a double cannot hold every int64).
  if (typeof value === 'number') return ['MEASURE_VALUE_TYPE_DOUBLE', { double_value: value }];
  if (typeof value === 'string') return ['MEASURE_VALUE_TYPE_VARCHAR', { varchar_value: value }];
  if (value instanceof Date) return ['MEASURE_VALUE_TYPE_TIMESTAMP', { timestamp_value: toNanos(value).toString() }];
  throw new TypeError(`${value} is not a measure value: use boolean, number (DOUBLE), BigInt (BIGINT), string or Date`);
}

/** A query parameter's Datum. */
function toDatum(value) {
  if (isMissing(value)) return { null_value: true };
  if (typeof value === 'boolean') return { boolean_value: value };
  if (typeof value === 'bigint') return { bigint_value: value.toString() };
  if (typeof value === 'number') return Number.isInteger(value) ? { bigint_value: String(value) } : { double_value: value };
  if (typeof value === 'string') return { varchar_value: value };
  if (value instanceof Date) return { timestamp_value: toNanos(value).toString() };
  throw new TypeError(`${value} cannot be a query parameter`);
}

/** A DATE (days since the epoch) as 'YYYY-MM-DD': a calendar day, no time zone to mistake. */
function dateText(days) {
  return new Date(Number(days) * 86_400_000).toISOString().slice(0, 10);
}

/** The JavaScript value of a result Datum. */
function fromDatum(datum) {
  switch (datum.value) {
    case undefined:
    case 'null_value': return null;
    case 'bigint_value': return BigInt(datum.bigint_value);
    case 'timestamp_value': return BigInt(datum.timestamp_value);
    case 'interval_nanos_value': return BigInt(datum.interval_nanos_value);
    case 'date_value': return dateText(datum.date_value);
    case 'interval_months_value': return Number(datum.interval_months_value);
    case 'array_value': return (datum.array_value.values || []).map(fromDatum);
    case 'row_value': return (datum.row_value.data || []).map(fromDatum);
    case 'time_series_value':
      return (datum.time_series_value.points || []).map((p) => ({
        time: BigInt(p.time), value: fromDatum(p.value || {}),
      }));
    default: return datum[datum.value];
  }
}

/** The values of one column of a columnar page (ColumnValues), `rows` long. */
function fromColumn(column, type, rows) {
  let values;
  switch (type) {
    case 'SCALAR_TYPE_VARCHAR': {
      const data = column.string_data || Buffer.alloc(0);
      values = [];
      let start = 0;
      for (const end of column.string_ends || []) {
        values.push(data.toString('utf8', start, end));
        start = end;
      }
      break;
    }
    case 'SCALAR_TYPE_DOUBLE': values = (column.doubles || []).slice(); break;
    case 'SCALAR_TYPE_BOOLEAN': values = (column.booleans || []).slice(); break;
    case 'SCALAR_TYPE_BIGINT':
    case 'SCALAR_TYPE_INTEGER':
    case 'SCALAR_TYPE_TIMESTAMP':
    case 'SCALAR_TYPE_INTERVAL_DAY_TO_SECOND':
    case 'SCALAR_TYPE_TIME':
      values = (column.ints || []).map((v) => BigInt(v));
      break;
    case 'SCALAR_TYPE_DATE': values = (column.ints || []).map(dateText); break;
    case 'SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH': values = (column.ints || []).map(Number); break;
    case 'SCALAR_TYPE_UNKNOWN': values = new Array(rows).fill(null); break;
    case 'NESTED': values = (column.values || []).map(fromDatum); break; // arrays, rows, series
    default:
      throw new StrataError('DATA_LOSS', `a columnar page holds a type it does not carry (${type})`);
  }
  if (values.length !== rows) {
    throw new StrataError('DATA_LOSS', `a columnar page holds ${values.length} values for ${rows} rows`);
  }
  const nulls = column.nulls;
  if (nulls && nulls.length && nulls.length !== Math.ceil(rows / 8)) {
    throw new StrataError('DATA_LOSS', `a columnar page has a null map of ${nulls.length} bytes for ${rows} rows`);
  }
  if (nulls && nulls.length) {
    for (let i = 0; i < rows; i++) if ((nulls[i >> 3] >> (i & 7)) & 1) values[i] = null;
  }
  return values;
}

function readFile(file) {
  return file ? fs.readFileSync(file) : null;
}

class Client {
  /**
   * @param {string} target host:port (default 127.0.0.1:7878)
   * @param {object} [options] tls, caFile, certFile, keyFile, token, timeoutMs, database
   */
  constructor(target = '127.0.0.1:7878', options = {}) {
    const tls = options.tls || options.caFile || options.certFile;
    const credentials = tls
      ? grpc.credentials.createSsl(readFile(options.caFile), readFile(options.keyFile), readFile(options.certFile))
      : grpc.credentials.createInsecure();
    this.catalog = new v1.CatalogService(target, credentials);
    this.queries = new v1.QueryService(target, credentials, {});
    this.writes = new v1.WriteService(target, credentials, {});
    this.metadata = new grpc.Metadata();
    if (options.token) this.metadata.set('authorization', `Bearer ${options.token}`);
    this.timeoutMs = options.timeoutMs || 30_000;
    this.database = options.database || '';
  }

  close() {
    for (const stub of [this.catalog, this.queries, this.writes]) stub.close();
  }

  call(stub, method, request) {
    return new Promise((resolve, reject) => {
      stub[method](request, this.metadata, { deadline: Date.now() + this.timeoutMs }, (error, response) => {
        if (error) reject(StrataError.fromGrpc(error));
        else resolve(response);
      });
    });
  }

  async createDatabase(name, { ifNotExists = false } = {}) {
    try {
      await this.call(this.catalog, 'CreateDatabase', { database_name: name });
    } catch (e) {
      if (!(ifNotExists && e.code === 'ALREADY_EXISTS')) throw e;
    }
  }

  async listDatabases() {
    const names = [];
    let token = '';
    do {
      const page = await this.call(this.catalog, 'ListDatabases', { next_token: token });
      for (const d of page.databases || []) names.push(d.database_name);
      token = page.next_token || '';
    } while (token);
    return names;
  }

  async createTable(database, table, { memoryHours, magneticDays, magneticWrites = false, ifNotExists = false } = {}) {
    const request = {
      database_name: database,
      table_name: table,
      magnetic_store_write_properties: { enable_magnetic_store_writes: magneticWrites },
    };
    if (memoryHours !== undefined || magneticDays !== undefined) {
      request.retention_properties = {
        memory_store_retention_hours: String(memoryHours ?? 6),
        magnetic_store_retention_days: String(magneticDays ?? 73000),
      };
    }
    try {
      await this.call(this.catalog, 'CreateTable', request);
    } catch (e) {
      if (!(ifNotExists && e.code === 'ALREADY_EXISTS')) throw e;
    }
  }

  async listTables(database = '') {
    const names = [];
    let token = '';
    do {
      const page = await this.call(this.catalog, 'ListTables', { database_name: database, next_token: token });
      for (const t of page.tables || []) names.push(t.table_name);
      token = page.next_token || '';
    } while (token);
    return names;
  }

  async deleteTable(database, table) {
    await this.call(this.catalog, 'DeleteTable', { database_name: database, table_name: table });
  }

  /** A batching Writer for one table (see Writer). */
  writer(database, table, options) {
    return new Writer(this, database, table, options);
  }

  /** Writes `records` and resolves to the Writer's summary. */
  async write(database, table, records, options) {
    const writer = this.writer(database, table, options);
    for (const record of records) await writer.add(record);
    return writer.close();
  }

  /**
   * Runs `sql`. `parameters`: an array for `?` placeholders or an object for `@name` ones.
   * @returns {QueryResult}
   */
  query(sql, { parameters, pageSize = 1000, timeoutMs, database } = {}) {
    const request = {
      query_string: sql, page_size: pageSize, database: database ?? this.database, columnar: true,
    };
    if (timeoutMs) request.timeout_millis = String(timeoutMs);
    if (Array.isArray(parameters)) {
      request.parameters = parameters.map((v) => ({ value: toDatum(v) }));
    } else if (parameters) {
      request.parameters = Object.entries(parameters).map(([name, v]) => ({ name, value: toDatum(v) }));
    }
    return new QueryResult(this, this.queries.Query(request, this.metadata));
  }

  async cancel(queryId) {
    const response = await this.call(this.queries, 'CancelQuery', { query_id: queryId });
    return response.cancellation_message;
  }
}

/** A running query: `for await (const row of result)` or `result.pages()`. */
class QueryResult {
  constructor(client, stream) {
    this.client = client;
    this.stream = stream;
    this.columns = null; // set when the metadata arrives
    this.queryId = null;
    this.statistics = null;
  }

  /** The pages as the server sends them, each an array of rows (arrays of values). */
  async *pages() {
    try {
      for await (const message of this.stream) {
        if (message.metadata) {
          this.queryId = message.metadata.query_id;
          this.columns = (message.metadata.columns || []).map((c) => c.name);
          // 'NESTED' for an array, row or timeseries column: a Datum per row.
          this.types = (message.metadata.columns || []).map((c) => (c.type && c.type.type !== 'scalar_type'
            ? 'NESTED' : c.type && c.type.scalar_type));
        } else if (message.column_page) {
          const rows = message.column_page.row_count || 0;
          const columns = (message.column_page.columns || []).map((c, i) => fromColumn(c, this.types[i], rows));
          const page = [];
          for (let r = 0; r < rows; r++) page.push(columns.map((values) => values[r]));
          yield page;
        } else if (message.page) {
          yield (message.page.rows || []).map((row) => (row.data || []).map(fromDatum));
        } else if (message.statistics) {
          this.statistics = message.statistics;
        }
      }
    } catch (error) {
      throw StrataError.fromGrpc(error);
    }
  }

  async *[Symbol.asyncIterator]() {
    for await (const page of this.pages()) yield* page;
  }

  /** Every row, read to the end. */
  async all() {
    const rows = [];
    for await (const row of this) rows.push(row);
    return rows;
  }

  /** Stops the query on the server (CancelQuery) and the stream. */
  async cancel() {
    if (this.queryId) await this.client.cancel(this.queryId);
    this.stream.cancel();
  }
}

/**
 * Writes records to one table in requests of `batchSize` records (1..10,000,
 * 1,000 by default: BulkWriteRecords above 100, WriteRecords at 100 or fewer); dimensions
 * and measure names every record of a request shares go once in its
 * common_attributes. Up to `inFlight` requests are outstanding; UNAVAILABLE,
 * RESOURCE_EXHAUSTED, CANCELLED, DEADLINE_EXCEEDED and a stream the connection
 * reset are retried with exponential backoff. Records the server rejects are in `summary.rejected`
 * with their position among the records added.
 *
 * A record: { dimensions: {name: value}, measureName, time (Date | BigInt ns |
 * number ms), measures: {name: value} (MULTI) or value (scalar), version }.
 */
class Writer {
  constructor(client, database, table, { batchSize = 1000, inFlight = 4, maxRetries = 8, backoffMs = 100 } = {}) {
    if (batchSize < 1 || batchSize > MAX_RECORDS_PER_REQUEST) {
      throw new RangeError(`batchSize must be 1..${MAX_RECORDS_PER_REQUEST}`);
    }
    Object.assign(this, { client, database, table, batchSize, inFlight, maxRetries, backoffMs });
    this.batch = [];
    this.positions = [];
    this.nextPosition = 0;
    this.pending = [];
    this.summary = { written: 0, memoryStore: 0, magneticStore: 0, requests: 0, retries: 0, rejected: [] };
  }

  async add(record) {
    this.batch.push(record);
    this.positions.push(this.nextPosition++);
    if (this.batch.length >= this.batchSize) await this.sendBatch();
  }

  async flush() {
    if (this.batch.length) await this.sendBatch();
    await Promise.all(this.pending);
    this.pending = [];
    return this.summary;
  }

  close() {
    return this.flush();
  }

  request(batch) {
    let common = { ...batch[0].dimensions };
    for (const r of batch.slice(1)) {
      for (const [k, v] of Object.entries(common)) if (r.dimensions[k] !== v) delete common[k];
    }
    common = Object.fromEntries(Object.entries(common).filter(([, v]) => !isMissing(v)));
    const sameName = batch.every((r) => r.measureName === batch[0].measureName);
    const commonAttributes = {
      dimensions: Object.entries(common).map(([name, value]) => ({ name, value: String(value) })),
      time_unit: 'TIME_UNIT_NANOSECONDS',
    };
    if (sameName) commonAttributes.measure_name = batch[0].measureName;
    const records = batch.map((r) => {
      const out = {
        dimensions: Object.entries(r.dimensions)
          .filter(([k, v]) => !(k in common) && !isMissing(v))
          .map(([name, value]) => ({ name, value: String(value) })),
        time: toNanos(r.time).toString(),
      };
      if (!sameName) out.measure_name = r.measureName;
      if (r.version !== undefined) out.version = String(r.version);
      if (r.measures) {
        out.measure_value_type = 'MEASURE_VALUE_TYPE_MULTI';
        out.measure_values = Object.entries(r.measures)
          .filter(([, v]) => !isMissing(v))
          .map(([name, v]) => {
            const [type, value] = measureValue(v);
            return { name, type, value };
          });
      } else {
        const [type, value] = measureValue(r.value);
        out.measure_value_type = type;
        out.measure_value = value;
      }
      return out;
    });
    return { database_name: this.database, table_name: this.table, common_attributes: commonAttributes, records };
  }

  async sendBatch() {
    const batch = this.batch;
    const positions = this.positions;
    this.batch = [];
    this.positions = [];
    while (this.pending.length >= this.inFlight) await Promise.race(this.pending);
    const request = this.request(batch);
    const done = this.send(request, batch, positions).finally(() => {
      this.pending = this.pending.filter((p) => p !== done);
    });
    this.pending.push(done);
  }

  async send(request, batch, positions) {
    let delay = this.backoffMs;
    const method = request.records.length > WRITE_RECORDS_LIMIT ? 'BulkWriteRecords' : 'WriteRecords';
    for (let attempt = 0; ; attempt++) {
      this.summary.requests++;
      try {
        const response = await new Promise((resolve, reject) => {
          this.client.writes[method](request, this.client.metadata,
            { deadline: Date.now() + this.client.timeoutMs },
            (error, r) => (error ? reject(error) : resolve(r)));
        });
        const ingested = response.records_ingested || {};
        this.summary.written += Number(ingested.total || 0);
        this.summary.memoryStore += Number(ingested.memory_store || 0);
        this.summary.magneticStore += Number(ingested.magnetic_store || 0);
        for (const r of response.rejected_records || []) {
          const index = r.record_index || 0;
          this.summary.rejected.push({
            position: positions[index],
            reason: r.reason,
            existingVersion: r.existing_version === undefined ? null : BigInt(r.existing_version),
            record: batch[index],
          });
        }
        return;
      } catch (error) {
        if (!isRetryableWrite(error) || attempt >= this.maxRetries) throw StrataError.fromGrpc(error);
        this.summary.retries++;
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, 5000);
      }
    }
  }
}

module.exports = { Client, Writer, QueryResult, StrataError, toDate, toNanos };
