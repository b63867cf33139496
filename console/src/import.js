// The import view: a CSV, JSON Lines or line-protocol file dropped (or
// chosen) for a table, its first rows previewed with each column's role
// guessed (and changeable), then sent through /write in chunks with a
// progress bar, and the rejected rows listed with the server's reasons.
import { token } from './api.js';
import { detectFormat, guessRoles, readTable, rejectedLines, toLine } from './import_parse.js';

const CHUNK_LINES = 5000;
const PREVIEW_ROWS = 10;

export class ImportView {
  // `databases()`: the names the schema shows; `onDone()` after an import.
  constructor(parent, { databases, onDone }) {
    this.databases = databases;
    this.onDone = onDone;
    this.root = document.createElement('div');
    this.root.className = 'import';
    this.root.innerHTML = `
      <div class="import-target">
        <label>Database <select class="import-database"></select></label>
        <label>Table <input class="import-table" placeholder="table" size="24"></label>
      </div>
      <label class="import-drop">
        <input type="file" class="import-file" accept=".csv,.jsonl,.ndjson,.json,.lp,.txt">
        <span>Drop a CSV, JSON Lines or line-protocol file here, or click to choose one.</span>
      </label>
      <div class="import-preview"></div>
      <div class="import-actions">
        <button type="button" class="primary import-start" disabled>Import</button>
        <progress class="import-progress" max="1" value="0" hidden></progress>
        <span class="import-status" role="status"></span>
      </div>
      <ul class="import-rejected"></ul>`;
    parent.append(this.root);
    this.q = (s) => this.root.querySelector(s);
    const drop = this.q('.import-drop');
    drop.addEventListener('dragover', (e) => {
      e.preventDefault();
      drop.classList.add('over');
    });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      if (e.dataTransfer.files.length > 0) this.load(e.dataTransfer.files[0]);
    });
    this.q('.import-file').addEventListener('change', (e) => {
      if (e.target.files.length > 0) this.load(e.target.files[0]);
    });
    this.q('.import-start').addEventListener('click', () => this.start());
  }

  refresh() {
    const select = this.q('.import-database');
    const current = select.value;
    select.replaceChildren(...this.databases().map((d) => new Option(d, d)));
    if (current) select.value = current;
  }

  async load(file) {
    const text = await file.text();
    this.format = detectFormat(file.name, text);
    this.table = readTable(this.format, text);
    this.source = text;
    if (!this.q('.import-table').value) {
      this.q('.import-table').value = file.name.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_.-]/g, '_');
    }
    this.roles = this.table.columns ? guessRoles(this.table.columns, this.table.rows) : null;
    this.renderPreview(file.name);
    this.q('.import-start').disabled = false;
    this.q('.import-rejected').replaceChildren();
    this.status(`${this.rowCount()} rows read from ${file.name} (${this.format})`);
  }

  rowCount() {
    return this.table.lines ? this.table.lines.length : this.table.rows.length;
  }

  renderPreview() {
    const preview = this.q('.import-preview');
    const table = document.createElement('table');
    if (this.table.lines) {
      for (const line of this.table.lines.slice(0, PREVIEW_ROWS)) {
        table.insertRow().insertCell().textContent = line;
      }
      preview.replaceChildren(table);
      return;
    }
    const head = table.createTHead().insertRow();
    this.roles.forEach((r, c) => {
      const th = document.createElement('th');
      const select = document.createElement('select');
      select.className = 'import-role';
      for (const role of ['time', 'dimension', 'measure', 'ignore']) select.append(new Option(role, role));
      select.value = r.role;
      select.addEventListener('change', () => {
        this.roles[c].role = select.value;
      });
      th.append(`${r.name} `, select, ` ${r.role === 'measure' ? r.type : ''}`);
      head.append(th);
    });
    const body = table.createTBody();
    for (const row of this.table.rows.slice(0, PREVIEW_ROWS)) {
      const tr = body.insertRow();
      for (const value of row) tr.insertCell().textContent = String(value);
    }
    preview.replaceChildren(table);
  }

  status(text, kind = '') {
    const s = this.q('.import-status');
    s.textContent = text;
    s.dataset.state = kind;
  }

  // Lines to send, each with the row it came from (1-based), and the rows
  // refused before sending.
  lines() {
    const table = this.q('.import-table').value.trim();
    if (this.table.lines) return { lines: this.table.lines.map((line, i) => ({ line, row: i + 1 })), refused: [] };
    const lines = [];
    const refused = [...(this.table.errors || [])];
    this.table.rows.forEach((row, i) => {
      const made = toLine(table, this.roles, row);
      if (made.error) refused.push({ row: i + 1, text: row.join(','), reason: made.error });
      else lines.push({ line: made.line, row: i + 1 });
    });
    return { lines, refused };
  }

  async start() {
    const database = this.q('.import-database').value;
    const table = this.q('.import-table').value.trim();
    if (!database || !table) return this.status('Choose a database and name the table.', 'error');
    const { lines, refused } = this.lines();
    const progress = this.q('.import-progress');
    progress.hidden = false;
    progress.value = 0;
    this.q('.import-start').disabled = true;
    let written = 0;
    const rejected = [...refused];
    try {
      for (let i = 0; i < lines.length; i += CHUNK_LINES) {
        const chunk = lines.slice(i, i + CHUNK_LINES);
        const outcome = await this.send(database, chunk.map((l) => l.line).join('\n'));
        for (const r of outcome.rejected) {
          const from = chunk[r.line - 1];
          rejected.push({ row: from ? from.row : r.line, text: from ? from.line : '', reason: r.reason });
        }
        written += chunk.length - outcome.rejected.length;
        progress.value = (i + chunk.length) / lines.length;
        this.status(`${written} rows written…`, 'running');
      }
      this.status(`${written} rows written into ${database}.${table}, ${rejected.length} rejected`,
        rejected.length > 0 ? 'error' : 'ok');
    } catch (e) {
      this.status(e.message, 'error');
    } finally {
      this.q('.import-start').disabled = false;
      this.renderRejected(rejected);
      this.onDone?.();
    }
  }

  // One request of line protocol; the rejected lines of a partial write.
  async send(database, body) {
    const headers = { 'Content-Type': 'text/plain; charset=utf-8' };
    if (token()) headers.Authorization = `Bearer ${token()}`;
    const response = await fetch(`/write?db=${encodeURIComponent(database)}&precision=ns`, {
      method: 'POST', headers, body,
    });
    if (response.status === 204) return { rejected: [] };
    const text = await response.text();
    let message = text;
    try {
      message = JSON.parse(text).error ?? text;
    } catch { /* not JSON */ }
    if (response.status === 400 && /partial write|rejected/.test(message)) {
      const rejected = rejectedLines(message);
      if (rejected.length > 0) return { rejected };
    }
    const why = response.status === 401 || response.status === 403
      ? `Your token may not write to ${database}: ${message}` : message;
    throw new Error(why);
  }

  renderRejected(rejected) {
    const list = this.q('.import-rejected');
    list.replaceChildren(...rejected.slice(0, 200).map((r) => {
      const item = document.createElement('li');
      item.textContent = `row ${r.row}: ${r.reason}`;
      item.title = r.text;
      return item;
    }));
    if (rejected.length > 200) {
      const more = document.createElement('li');
      more.textContent = `… and ${rejected.length - 200} more`;
      list.append(more);
    }
  }
}
