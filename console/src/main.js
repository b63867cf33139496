// The console's page: the schema browser and history on the left; tabs of
// SQL, the editor and its toolbar; the result as a grid, a chart, EXPLAIN's
// tree, and the query's statistics.
import { SqlError, runSql, setToken, token } from './api.js';
import { ResultChart, chartable } from './chart.js';
import { SqlEditor } from './editor.js';
import { renderExplain } from './explain.js';
import { ImportView } from './import.js';
import { OperationsView } from './operations.js';
import { ResultGrid, toCsv } from './grid.js';
import { completionSchema, loadFunctions, loadSchema, renderSchema } from './schema.js';
import { catalogChange, statementAt } from './statements.js';
import { Tabs } from './tabs.js';

const $ = (selector) => document.querySelector(selector);

const state = { running: null, result: null, schema: null };

const tabs = new Tabs($('#tabs'), { onSelect: (text) => editor.load(text) });
const editor = new SqlEditor($('#editor'), {
  onRun: () => run(),
  onChange: (text) => tabs.save(text),
});
editor.load(tabs.current());
const grid = new ResultGrid($('#view-grid'), {
  onCopy: (text) => status(`Copied ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`),
});
const chart = new ResultChart($('#view-chart'));
const operations = new OperationsView($('#view-operations'));
const importer = new ImportView($('#view-import'), {
  databases: () => (state.schema?.databases || []).map((d) => d.name),
  onDone: () => refreshSchema(),
});

function status(text, kind = '') {
  const line = $('#status');
  line.textContent = text;
  line.dataset.state = kind;
}

function showView(name) {
  for (const button of document.querySelectorAll('[data-view]')) {
    button.classList.toggle('active', button.dataset.view === name);
  }
  for (const view of document.querySelectorAll('.view')) {
    view.hidden = view.id !== `view-${name}`;
  }
  if (name === 'chart' && state.result) chart.show(state.result.columns, state.result.rows);
  if (name === 'import') importer.refresh();
  if (name === 'operations') operations.start();
  else operations.stop();
}

function showError(error, statement) {
  const panel = $('#error');
  panel.hidden = false;
  const title = document.createElement('div');
  title.className = 'error-title';
  title.textContent = `${error.code}: ${error.message}`;
  panel.replaceChildren(title);
  const position = error.position;
  if (!position || !statement) return;
  // The statement's line the error is on, a caret under its column (as the
  // CLI draws it), and the same spot marked in the editor.
  const line = statement.text.split('\n')[position.line - 1] ?? '';
  const caret = document.createElement('pre');
  caret.className = 'error-caret';
  caret.textContent = `${line}\n${' '.repeat(Math.max(0, position.column - 1))}^`;
  panel.append(caret);
  const before = statement.text.split('\n').slice(0, position.line - 1).join('\n');
  const offset = statement.from + (position.line > 1 ? before.length + 1 : 0) + position.column - 1;
  editor.markError(offset, error.message);
}

function showStatistics(statistics) {
  if (!statistics) return;
  const s = statistics;
  $('#statistics').textContent =
    `${s.rows_returned} rows · ${s.elapsed_ms} ms · scanned ${s.rows_scanned} rows, ` +
    `${s.bytes_scanned} bytes · buckets ${s.buckets_scanned} read, ${s.buckets_pruned} pruned · ` +
    `series ${s.series_scanned} read, ${s.series_pruned} pruned · ` +
    `blocks ${s.blocks_scanned} read, ${s.blocks_pruned} pruned`;
}

async function run() {
  if (state.running) return;
  const { from, to } = editor.selection();
  const statement = statementAt(editor.text(), from, to);
  if (!statement) return status('Nothing to run: type a statement.');
  const controller = new AbortController();
  state.running = controller;
  $('#run').disabled = true;
  $('#cancel').disabled = false;
  $('#error').hidden = true;
  status('Running…', 'running');
  const started = performance.now();
  try {
    const result = await runSql(statement.text, { signal: controller.signal });
    state.result = result;
    tabs.remember(statement.text);
    renderHistory();
    const explain = /^\s*explain\b/i.test(statement.text) && result.columns.length === 1;
    if (explain) {
      renderExplain($('#view-explain'), result.rows.map((r) => String(r[0])));
      showView('explain');
    } else {
      grid.show(result.columns, result.rows);
      const current = document.querySelector('[data-view].active')?.dataset.view;
      showView(current === 'chart' && chartable(result.columns).drawable ? 'chart' : 'grid');
    }
    showStatistics(result.statistics);
    const took = Math.round(performance.now() - started);
    const change = catalogChange(statement.text);
    if (change) {
      // CREATE, ALTER or DROP: the schema browser shows the catalog as it now is.
      status(`${change} done in ${took} ms`, 'ok');
      refreshSchema();
    } else {
      status(`${result.rows.length} rows in ${took} ms`, 'ok');
    }
  } catch (error) {
    if (error.name === 'AbortError') {
      status('Cancelled: the server stopped the query.', 'error');
    } else if (error instanceof SqlError) {
      showError(error, statement);
      status(error.status === 401 ? 'Log in with a token to run queries.' : 'The query failed.', 'error');
      if (error.status === 401) showLogin();
    } else {
      status(`The server did not answer: ${error.message}`, 'error');
    }
  } finally {
    state.running = null;
    $('#run').disabled = false;
    $('#cancel').disabled = true;
  }
}

function renderHistory() {
  const list = $('#history');
  list.replaceChildren(...tabs.history().map((text) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    button.title = text;
    button.addEventListener('click', () => editor.insert(text));
    item.append(button);
    return item;
  }));
}

async function refreshSchema() {
  try {
    const [schema, functions] = await Promise.all([loadSchema(), loadFunctions()]);
    state.schema = schema;
    renderSchema($('#schema'), schema, { onInsert: (text) => editor.insert(text) });
    editor.setSchema(completionSchema(schema), functions);
  } catch (error) {
    $('#schema').textContent = `The schema could not be read: ${error.message}`;
    if (error.status === 401) showLogin();
  }
}

function showLogin() {
  const dialog = $('#login');
  if (!dialog.open) dialog.showModal();
  $('#token').focus();
}

function download() {
  if (!state.result) return;
  const blob = new Blob([toCsv(state.result.columns, state.result.rows)], { type: 'text/csv' });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = 'result.csv';
  link.click();
  URL.revokeObjectURL(link.href);
}

$('#run').addEventListener('click', () => run());
$('#cancel').addEventListener('click', () => state.running?.abort());
$('#download').addEventListener('click', download);
$('#refresh-schema').addEventListener('click', refreshSchema);
for (const button of document.querySelectorAll('[data-view]')) {
  button.addEventListener('click', () => showView(button.dataset.view));
}
$('#login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  setToken($('#token').value.trim());
  $('#token').value = '';
  $('#login').close();
  $('#logout').hidden = !token();
  refreshSchema();
});
$('#logout').addEventListener('click', () => {
  setToken('');
  $('#logout').hidden = true;
  refreshSchema();
});
$('#logout').hidden = !token();
renderHistory();
refreshSchema();
editor.focus();
