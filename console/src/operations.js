// The operations view: running queries (with Kill), ingest and query rates
// and storage per table and tier from the server's metrics (refreshed every
// few seconds while the view is open), and the scheduled queries with their
// last runs and recent failures.
import { SqlError, runSql, token } from './api.js';
import { formatBytes as bytes } from './format.js';
import { parseMetrics, rate, tables, total } from './metrics.js';

const REFRESH_MS = 5000;

function table(headers, rows) {
  const element = document.createElement('table');
  element.className = 'ops-table';
  const head = element.createTHead().insertRow();
  for (const h of headers) head.append(Object.assign(document.createElement('th'), { textContent: h }));
  const body = element.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const cell of row) {
      const td = tr.insertCell();
      if (cell instanceof Node) td.append(cell);
      else td.textContent = cell ?? '';
    }
  }
  return element;
}

function section(title, content) {
  const s = document.createElement('section');
  s.className = 'ops-section';
  s.append(Object.assign(document.createElement('h3'), { textContent: title }), content);
  return s;
}

function note(text) {
  return Object.assign(document.createElement('p'), { className: 'muted', textContent: text });
}

export class OperationsView {
  constructor(parent) {
    this.root = document.createElement('div');
    this.root.className = 'ops';
    parent.append(this.root);
    this.previous = null;  // {at, ingested, queries}
    this.timer = null;
  }

  start() {
    this.stop();
    this.refresh();
    this.timer = setInterval(() => this.refresh(), REFRESH_MS);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async refresh() {
    const [queries, metrics, scheduled, failures] = await Promise.all([
      this.rows('SHOW QUERIES'),
      this.metrics(),
      this.rows('SELECT name, state, schedule_expression, target_database, target_table, ' +
        'last_run_status, next_invocation_time FROM "system"."scheduled_queries"'),
      this.rows('SELECT scheduled_query, invocation_time, status, failure_reason FROM ' +
        '"system"."scheduled_query_runs" WHERE status LIKE \'%FAILURE%\' ORDER BY end_time DESC LIMIT 10'),
    ]);
    this.root.replaceChildren(
      this.renderRates(metrics),
      this.renderQueries(queries),
      this.renderStorage(metrics),
      this.renderScheduled(scheduled, failures),
    );
  }

  async rows(sql) {
    try {
      return { rows: (await runSql(sql)).rows };
    } catch (e) {
      return { error: e instanceof SqlError ? `${e.code}: ${e.message}` : e.message };
    }
  }

  async metrics() {
    const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
    const response = await fetch('/metrics', { headers });
    if (!response.ok) {
      return { error: response.status === 403 || response.status === 401
        ? 'Your token may not read the server\'s metrics (that needs the grant metrics, or admin).'
        : `The metrics did not load (HTTP ${response.status}).` };
    }
    return { samples: parseMetrics(await response.text()) };
  }

  renderRates(metrics) {
    if (metrics.error) return section('Rates', note(metrics.error));
    const s = metrics.samples;
    const now = performance.now() / 1000;
    const reading = {
      at: now,
      ingested: total(s, 'strata_records_ingested_total'),
      queries: total(s, 'strata_queries_total'),
    };
    const seconds = this.previous ? now - this.previous.at : 0;
    const ingest = rate(this.previous?.ingested ?? null, reading.ingested, seconds);
    const query = rate(this.previous?.queries ?? null, reading.queries, seconds);
    this.previous = reading;
    const perSecond = (r) => (r === null ? '…' : `${r.toFixed(1)}/s`);
    return section('Rates', table(
      ['records ingested', 'queries', 'queries running', 'queries queued', 'memory store', 'writes'],
      [[`${perSecond(ingest)} (${reading.ingested} in all)`, `${perSecond(query)} (${reading.queries} in all)`,
        total(s, 'strata_queries_running'), total(s, 'strata_queries_queued'),
        `${bytes(total(s, 'strata_memory_store_bytes'))} of ${bytes(total(s, 'strata_memory_store_budget_bytes'))}`,
        total(s, 'strata_writes_paused') > 0 ? 'PAUSED (disk)' : 'accepted']]));
  }

  renderQueries(queries) {
    if (queries.error) return section('Running queries', note(queries.error));
    const rows = queries.rows.map(([id, sql, who, client, started, elapsed, scanned]) => {
      const kill = Object.assign(document.createElement('button'), {
        type: 'button', textContent: 'Kill', className: 'ops-kill',
      });
      kill.addEventListener('click', async () => {
        kill.disabled = true;
        await this.rows(`KILL QUERY '${id}'`);
        this.refresh();
      });
      return [id, sql, who || '(no token)', client, started, elapsed, scanned, kill];
    });
    return section('Running queries', table(
      ['id', 'query', 'token', 'client', 'started', 'elapsed', 'rows scanned', ''], rows));
  }

  renderStorage(metrics) {
    if (metrics.error) return section('Storage per table', note(metrics.error));
    const rows = tables(metrics.samples).map((t) => [
      `${t.database}.${t.table}`,
      `${bytes(t.bytes.memory)} · ${t.rows.memory ?? 0} rows`,
      `${bytes(t.bytes.magnetic)} · ${t.rows.magnetic ?? 0} rows`,
      `${bytes(t.bytes.magnetic_late)} · ${t.rows.magnetic_late ?? 0} rows`,
      t.tiered, t.expired,
      t.maintained ? new Date(t.maintained * 1000).toISOString().replace('T', ' ').slice(0, 19) : '',
    ]);
    return section('Storage per table', table(
      ['table', 'memory store', 'magnetic store', 'late writes', 'rows tiered', 'rows expired',
        'last maintenance (UTC)'], rows));
  }

  renderScheduled(scheduled, failures) {
    const box = document.createElement('div');
    box.append(scheduled.error ? note(scheduled.error) : table(
      ['name', 'state', 'schedule', 'target', 'last run', 'next run'],
      scheduled.rows.map(([name, state, schedule, db, tbl, last, next]) =>
        [name, state, schedule, `${db}.${tbl}`, last ?? '', next ?? ''])));
    if (!failures.error && failures.rows.length > 0) {
      box.append(Object.assign(document.createElement('h4'), { textContent: 'Recent failures' }),
        table(['scheduled query', 'invocation', 'status', 'reason'], failures.rows));
    }
    return section('Scheduled queries', box);
  }
}
