// Types of @strata/client (lib/index.js).

export type Value = null | boolean | number | bigint | string | Date;
/**
 * A result cell: BIGINT, TIMESTAMP (ns since the epoch), INTERVAL (ns) and TIME (ns since
 * midnight) are bigint; DATE is 'YYYY-MM-DD'; INTERVAL YEAR TO MONTH a number of months;
 * arrays and rows are arrays, a time series a list of points.
 */
export type Cell = null | boolean | number | bigint | string | Cell[] | TimeSeriesPoint[];
/** A point of a time series: nanoseconds since the epoch and its value. */
export interface TimeSeriesPoint { time: bigint; value: Cell }
export type Row = Cell[];

export interface ClientOptions {
  tls?: boolean;
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  token?: string;
  timeoutMs?: number;
  /** The database of table names written without one, in queries. */
  database?: string;
}

export interface WriteRecord {
  dimensions: Record<string, string>;
  measureName: string;
  /** A Date, bigint nanoseconds or number milliseconds since the epoch. */
  time: Date | bigint | number;
  /** MULTI record: attribute name to value (null/undefined/NaN are left out). */
  measures?: Record<string, Value | undefined>;
  /** Scalar record. */
  value?: Value;
  version?: number | bigint;
}

export interface RejectedRecord {
  position: number;
  reason: string;
  existingVersion: bigint | null;
  record: WriteRecord;
}

export interface WriteSummary {
  written: number;
  memoryStore: number;
  magneticStore: number;
  requests: number;
  retries: number;
  rejected: RejectedRecord[];
}

export interface WriterOptions {
  /** Records a request: 1..10,000, 1,000 by default (BulkWriteRecords above 100). */
  batchSize?: number;
  inFlight?: number;
  maxRetries?: number;
  backoffMs?: number;
}

export interface QueryOptions {
  parameters?: Value[] | Record<string, Value>;
  pageSize?: number;
  timeoutMs?: number;
  database?: string;
}

export class StrataError extends Error {
  /** The gRPC status name: 'INVALID_ARGUMENT', 'NOT_FOUND', ... */
  code: string;
  details: string;
}

export class QueryResult implements AsyncIterable<Row> {
  columns: string[] | null;
  queryId: string | null;
  statistics: Record<string, string> | null;
  pages(): AsyncGenerator<Row[]>;
  [Symbol.asyncIterator](): AsyncIterator<Row>;
  all(): Promise<Row[]>;
  cancel(): Promise<void>;
}

export class Writer {
  summary: WriteSummary;
  add(record: WriteRecord): Promise<void>;
  flush(): Promise<WriteSummary>;
  close(): Promise<WriteSummary>;
}

export class Client {
  constructor(target?: string, options?: ClientOptions);
  close(): void;
  createDatabase(name: string, options?: { ifNotExists?: boolean }): Promise<void>;
  listDatabases(): Promise<string[]>;
  createTable(database: string, table: string, options?: {
    memoryHours?: number; magneticDays?: number; magneticWrites?: boolean; ifNotExists?: boolean;
  }): Promise<void>;
  listTables(database?: string): Promise<string[]>;
  deleteTable(database: string, table: string): Promise<void>;
  writer(database: string, table: string, options?: WriterOptions): Writer;
  write(database: string, table: string, records: Iterable<WriteRecord>, options?: WriterOptions): Promise<WriteSummary>;
  query(sql: string, options?: QueryOptions): QueryResult;
  cancel(queryId: string): Promise<string>;
}

/** A Date (milliseconds) of nanoseconds since the epoch. */
export function toDate(nanos: bigint | string): Date;
/** Nanoseconds since the epoch of a Date, bigint nanoseconds or number milliseconds. */
export function toNanos(time: Date | bigint | number): bigint;
