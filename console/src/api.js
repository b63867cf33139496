// The HTTP SQL API (/api/v1/sql, docs/api.md) as the console calls it: one
// statement per request, the token (if any) as a Bearer header, never in a
// URL.
const TOKEN_KEY = 'strata.token';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// A refusal of the server: its code (INVALID_ARGUMENT, ...), message, and
// where in the statement it points (offset in characters, line, column).
export class SqlError extends Error {
  constructor(status, error) {
    super(error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = error?.code || 'UNKNOWN';
    this.position = error?.position || null;
  }
}

// Runs `query`; resolves to {columns: [{name, type}], rows: [[...]],
// statistics}. `signal` cancels it (the server cancels a query whose client
// left).
export async function runSql(query, { signal, database } = {}) {
  const headers = { 'Content-Type': 'application/json' };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const response = await fetch('/api/v1/sql?format=json', {
    method: 'POST',
    headers,
    body: JSON.stringify(database ? { query, database } : { query }),
    signal,
  });
  const text = await response.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    // A JSON answer cut short (an error after the first rows, a dropped
    // connection) or a proxy's page.
    throw new SqlError(response.status, { code: 'UNAVAILABLE', message: text.slice(0, 300) });
  }
  if (!response.ok || body.error) throw new SqlError(response.status, body.error);
  return body;
}

// The rows of a schema lookup, or [] for what the caller's token may not
// see (403, 404). Without a valid token (401) it throws: the page asks for
// one.
export async function rowsOf(query) {
  try {
    return (await runSql(query)).rows;
  } catch (e) {
    if (e.status === 403 || e.status === 404) return [];
    throw e;
  }
}
