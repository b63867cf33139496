// Reading an import file (CSV with a header, JSON Lines, line protocol),
// guessing each column's role and type, and turning its rows into line
// protocol for /write (the HTTP line-protocol door, through the write path
// and its version rules). No DOM here, so it is tested on its own.

// 'csv', 'jsonl' or 'lp', by the file's name, else by its first line.
export function detectFormat(name, text) {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (/\.(jsonl|ndjson|json)$/.test(lower)) return 'jsonl';
  if (/\.(lp|line|influx)$/.test(lower)) return 'lp';
  const first = text.trimStart().split('\n', 1)[0];
  if (first.startsWith('{')) return 'jsonl';
  return /^[^,\s]+(,[^=\s]+=[^,\s]+)* [^=\s]+=/.test(first) ? 'lp' : 'csv';
}

// RFC 4180: rows of fields, quotes doubled inside quoted fields.
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.length > 1 || r[0] !== '');
}

// {columns: [name], rows: [[value]]} of a CSV or JSON Lines file; for line
// protocol {lines}.
export function readTable(format, text) {
  if (format === 'lp') {
    return { lines: text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')) };
  }
  if (format === 'csv') {
    const [header = [], ...rows] = parseCsv(text);
    return { columns: header.map((h) => h.trim()), rows };
  }
  const objects = [];
  const errors = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      objects.push(JSON.parse(line));
    } catch (e) {
      errors.push({ row: i + 1, text: line, reason: `not JSON: ${e.message}` });
    }
  });
  const columns = [...new Set(objects.flatMap((o) => Object.keys(o)))];
  return { columns, rows: objects.map((o) => columns.map((c) => o[c] ?? '')), errors };
}

const TIME_NAMES = /^(time|timestamp|ts|date|datetime|_time)$/i;

function isNumber(v) {
  return typeof v === 'number' || (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)));
}
function isInteger(v) {
  return isNumber(v) && Number.isInteger(Number(v)) && !String(v).includes('.') && !/e/i.test(String(v));
}
function isBoolean(v) {
  return typeof v === 'boolean' || /^(true|false)$/i.test(String(v));
}

// Nanoseconds since the epoch (a decimal string) of a time value: an ISO
// text, or a number of seconds, milliseconds, micro- or nanoseconds (by its
// size); null when it is none of them.
export function timeNanos(value) {
  if (value === null || value === undefined || value === '') return null;
  if (isInteger(value)) {
    const n = BigInt(String(value).trim());
    const abs = n < 0n ? -n : n;
    if (abs < 100000000000n) return String(n * 1000000000n);
    if (abs < 100000000000000n) return String(n * 1000000n);
    if (abs < 100000000000000000n) return String(n * 1000n);
    return String(n);
  }
  const text = String(value).trim();
  let millis = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
  if (Number.isNaN(millis)) return null;
  // Digits below the millisecond that Date drops.
  const fraction = text.match(/\.(\d{4,9})/);
  let extra = 0n;
  if (fraction) extra = BigInt(fraction[1].slice(3).padEnd(6, '0'));
  return String(BigInt(millis) * 1000000n + extra);
}

// Each column's guessed role (time, dimension, measure, ignore) and a
// measure's type (bigint, double, boolean, varchar), from sample rows. A
// type holds when 95 % of a column's values fit it: the odd value out is
// then rejected with the server's reason rather than turning the column
// into text.
export function guessRoles(columns, rows) {
  const sample = rows.slice(0, 1000);
  let timeTaken = false;
  const mostly = (values, test) => values.length > 0 &&
    values.filter(test).length >= 0.95 * values.length;
  return columns.map((name, c) => {
    const values = sample.map((r) => r[c]).filter((v) => v !== '' && v !== null && v !== undefined);
    let type = 'varchar';
    if (mostly(values, isBoolean)) {
      type = 'boolean';
    } else if (mostly(values, isNumber)) {
      type = values.filter(isNumber).every(isInteger) ? 'bigint' : 'double';
    }
    let role = type === 'varchar' ? 'dimension' : 'measure';
    if (!timeTaken && (TIME_NAMES.test(name) ||
        (type === 'varchar' && mostly(values, (v) => timeNanos(v) !== null)))) {
      role = 'time';
      timeTaken = true;
    }
    return { name, role, type };
  });
}

const escapeKey = (s) => String(s).replace(/([,= \\])/g, '\\$1');
const escapeMeasurement = (s) => String(s).replace(/([, \\])/g, '\\$1');

// One row as a line of line protocol into `table`, or {error}.
export function toLine(table, roles, row) {
  const tags = [];
  const fields = [];
  let time = null;
  roles.forEach((r, c) => {
    const value = row[c];
    if (r.role === 'ignore' || value === '' || value === null || value === undefined) return;
    if (r.role === 'time') {
      time = timeNanos(value);
      if (time === null) time = { bad: value };
    } else if (r.role === 'dimension') {
      tags.push(`${escapeKey(r.name)}=${escapeKey(value)}`);
    } else if (r.type === 'bigint') {
      fields.push(`${escapeKey(r.name)}=${String(value).trim()}i`);
    } else if (r.type === 'double') {
      fields.push(`${escapeKey(r.name)}=${String(value).trim()}`);
    } else if (r.type === 'boolean') {
      fields.push(`${escapeKey(r.name)}=${String(value).toLowerCase()}`);
    } else {
      fields.push(`${escapeKey(r.name)}="${String(value).replace(/(["\\])/g, '\\$1')}"`);
    }
  });
  if (time === null) return { error: 'no time: choose the time column' };
  if (typeof time === 'object') return { error: `"${time.bad}" is not a time` };
  if (fields.length === 0) return { error: 'no measure value' };
  const head = [escapeMeasurement(table), ...tags].join(',');
  return { line: `${head} ${fields.join(',')} ${time}` };
}

// The rejected lines of a partial write (/write's 400 message:
// "... line N 'text': reason; line M ...") as [{line, reason}].
export function rejectedLines(message) {
  const out = [];
  const pattern = /line (\d+) '((?:[^']|'(?!: ))*)': (.*?)(?=; line \d+ '|\s+dropped=\d+|$)/gs;
  for (const m of message.matchAll(pattern)) out.push({ line: Number(m[1]), reason: m[3] });
  return out;
}
