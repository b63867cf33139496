// The console in a real headless Chromium (Debian's, driven by
// playwright-core) against a real stratad: run a query and see the rows,
// chart a line per host, see an error's caret, get a column completed,
// cancel a running query, log in on a server that checks tokens.
// Screenshots of each screen go to $STRATA_CONSOLE_SCREENSHOTS (default
// console/test-output/).
// Usage: STRATAD=build/server/stratad STRATA_CLI=build/client/strata node --test console/test/
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

const root = new URL('../..', import.meta.url).pathname;
const STRATAD = process.env.STRATAD || join(root, 'build/server/stratad');
const CLI = process.env.STRATA_CLI || join(root, 'build/client/strata');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = process.env.STRATA_CONSOLE_SCREENSHOTS || join(root, 'console/test-output');

// A stratad on free loopback ports with a data dir of its own; resolves
// once it serves, with its gRPC and HTTP ports.
async function startServer(extra = []) {
  const dir = mkdtempSync(join(tmpdir(), 'strata-console-'));
  const child = spawn(STRATAD, ['--data-dir', join(dir, 'data'), '--listen', '127.0.0.1:0',
    '--http-listen', '127.0.0.1:0', '--pg-listen', '', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const ports = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      log += chunk;
      const grpc = log.match(/serving on port (\d+)/);
      const http = log.match(/serving HTTP on port (\d+)/);
      if (grpc && http) resolve({ grpc: Number(grpc[1]), http: Number(http[1]) });
    });
    child.on('exit', (code) => reject(new Error(`stratad exited with ${code}:\n${log}`)));
  });
  return { child, dir, ...ports, url: `http://127.0.0.1:${ports.http}/`, log: () => log };
}

// Waits for stratad to exit before removing its directory: a server still
// flushing on its way out writes files into a directory being removed.
async function stopServer(server) {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGINT');
    const stuck = setTimeout(() => server.child.kill('SIGKILL'), 20000);
    await exited;
    clearTimeout(stuck);
  }
  rmSync(server.dir, { recursive: true, force: true });
}

// Three hosts' cpu usage for the last ten minutes, through line protocol.
async function loadDemo(server, token) {
  execFileSync(CLI, ['-p', String(server.grpc), ...(token ? ['--token', token] : []), 'db', 'create', 'demo']);
  const now = Math.floor(Date.now() / 1000);
  const lines = [];
  for (let i = 0; i < 60; i++) {
    for (const [h, host] of ['a', 'b', 'c'].entries()) {
      lines.push(`cpu,host=${host} usage=${(10 * h + (i % 7)).toFixed(1)} ${now - 600 + i * 10}`);
    }
  }
  const response = await fetch(`${server.url}write?db=demo&precision=s`, {
    method: 'POST', body: lines.join('\n'),
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  assert.equal(response.status, 204, await response.text());
}

let server;
let browser;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startServer();
  await loadDemo(server);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});

after(async () => {
  // A page still open belongs to a test that failed before closing it: keep
  // what it showed, and what the page threw, for the failure's reader.
  for (const [i, page] of [...openPages].entries()) {
    await page.screenshot({ path: join(SHOTS, `failed-${i + 1}.png`) }).catch(() => {});
    console.log(`a failed test's page: ${page.url()}; status "${
      await page.textContent('#status').catch(() => '')}"; errors: ${page.errors.join(' | ')}`);
  }
  await browser?.close();
  if (server) await stopServer(server);
});

const openPages = new Set();

async function openConsole(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  openPages.add(page);
  page.on('close', () => openPages.delete(page));
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('.cm-content');
  page.errors = errors;
  return page;
}

// Replaces the editor's text with `sql` and runs it (Ctrl-Enter).
async function runQuery(page, sql) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(sql);
  await page.keyboard.press('Control+Enter');
}

test('a query typed and run shows its rows in the grid', async () => {
  const page = await openConsole(server.url);
  // The schema browser lists the database, and its tables with their settings.
  await page.waitForSelector('.schema-tree >> text=demo');
  const info = await page.$$eval('.schema-info', (ls) => ls.map((l) => l.textContent));
  assert.ok(info.some((l) => /^retention: \d+ h in memory, \d+ d magnetic$/.test(l)), info.join(' | '));
  assert.ok(info.some((l) => /partition key measure_name/.test(l)), info.join(' | '));
  await runQuery(page, "SELECT host, count(*) AS points FROM demo.cpu GROUP BY host ORDER BY host");
  await page.waitForSelector('#status[data-state=ok]');
  const rows = await page.$$eval('.grid-row', (rs) => rs.map((r) =>
    [...r.querySelectorAll('.grid-td')].map((c) => c.textContent)));
  assert.deepEqual(rows, [['a', '60'], ['b', '60'], ['c', '60']]);
  const header = await page.$$eval('.grid-th', (hs) => hs.map((h) => h.textContent));
  assert.deepEqual(header, ['hostvarchar', 'pointsbigint']);
  assert.match(await page.textContent('#statistics'), /3 rows/);
  await page.screenshot({ path: join(SHOTS, 'grid.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a time series result charts one line per host', async () => {
  const page = await openConsole(server.url);
  await runQuery(page, 'SELECT host, bin(time, 1m) AS minute, avg(usage) AS usage FROM demo.cpu GROUP BY 1, 2');
  await page.waitForSelector('#status[data-state=ok]');
  await page.click('[data-view=chart]');
  await page.waitForSelector('.chart-canvas canvas');
  const legend = await page.$$eval('.u-legend .u-series .u-label', (ls) => ls.map((l) => l.textContent));
  assert.deepEqual(legend.slice(1).sort(), ['a', 'b', 'c']);  // [0] is the time axis
  // The canvas is not blank: some pixels were drawn.
  const drawn = await page.$eval('.chart-canvas canvas', (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) painted += data[i] > 0 ? 1 : 0;
    return painted;
  });
  assert.ok(drawn > 1000, `only ${drawn} pixels drawn`);
  await page.screenshot({ path: join(SHOTS, 'chart.png') });
  await page.close();
});

test("an error shows its caret where the server points", async () => {
  const page = await openConsole(server.url);
  await runQuery(page, 'SELECT host,\n  nope FROM demo.cpu');
  await page.waitForSelector('#error:not([hidden]) .error-caret');
  const caret = await page.textContent('.error-caret');
  // Line 2, column 3: under "nope".
  assert.equal(caret, '  nope FROM demo.cpu\n  ^');
  assert.match(await page.textContent('.error-title'), /nope/);
  // The editor marks the same spot.
  await page.waitForSelector('.cm-lintRange-error');
  assert.equal(await page.textContent('.cm-lintRange-error'), 'n');
  await page.screenshot({ path: join(SHOTS, 'error.png') });
  await page.close();
});

test('autocomplete offers a column with its type', async () => {
  const page = await openConsole(server.url);
  await page.waitForSelector('.schema-tree >> text=demo');
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type('SELECT demo.cpu.us');
  // The list shown while typing ("demo.c" offers the table cpu) is replaced as the keys
  // arrive: wait for the columns' list, then check what it says.
  await page.waitForFunction(() => [...document.querySelectorAll('.cm-tooltip-autocomplete li')]
    .some((l) => l.textContent.startsWith('usage')), null, { timeout: 10000 }).catch(() => {});
  const options = await page.$$eval('.cm-tooltip-autocomplete li', (ls) => ls.map((l) => l.textContent));
  assert.ok(options.some((o) => o.startsWith('usage') && o.includes('double')), options.join(' | '));
  await page.screenshot({ path: join(SHOTS, 'autocomplete.png') });
  await page.close();
});

test('a table created in the editor appears in the schema browser, and goes when dropped', async () => {
  const page = await openConsole(server.url);
  await page.waitForSelector('.schema-tree >> text=demo');
  await runQuery(page, 'CREATE TABLE demo.made_here WITH (memory_store_retention_hours = 12)');
  await page.waitForSelector('#status[data-state=ok]');
  assert.match(await page.textContent('#status'), /^CREATE TABLE done in \d+ ms$/);
  const rows = await page.$$eval('.grid-row', (rs) => rs.map((r) =>
    [...r.querySelectorAll('.grid-td')].map((c) => c.textContent).slice(0, 3)));
  assert.deepEqual(rows, [['demo', 'made_here', '12']]);
  // In the tree (under the database, folded or not).
  await page.waitForSelector('.schema-tree >> text=made_here', { state: 'attached' });
  await runQuery(page, 'DROP TABLE demo.made_here');
  await page.waitForSelector('#status[data-state=ok] >> text=DROP TABLE done');
  await page.waitForSelector('.schema-tree >> text=made_here', { state: 'detached' });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('EXPLAIN is drawn as a tree', async () => {
  const page = await openConsole(server.url);
  await runQuery(page, "EXPLAIN SELECT host, max(usage) FROM demo.cpu WHERE host = 'a' GROUP BY host");
  await page.waitForSelector('#view-explain .explain-tree');
  const operators = await page.$$eval('#view-explain strong', (s) => s.map((x) => x.textContent));
  assert.deepEqual(operators, ['Project', 'HashAggregate', 'Scan']);
  await page.close();
});

test('a CSV dropped on a table imports, and the rejected rows are listed', async () => {
  const page = await openConsole(server.url);
  await page.waitForSelector('.schema-tree >> text=demo');
  await page.click('[data-view=import]');
  const now = Date.now();
  const rows = ['time,host,temperature'];
  for (let i = 0; i < 250; i++) rows.push(`${new Date(now - i * 1000).toISOString()},h${i % 5},${20 + (i % 9) / 2}`);
  rows.push(`${new Date(now).toISOString()},h1,warm`);  // not a DOUBLE: rejected by the server
  rows.push('not a time,h2,21');                        // refused before sending
  // Dropped, as a user drags it from the desktop.
  const file = await page.evaluateHandle((text) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], 'rooms.csv', { type: 'text/csv' }));
    return transfer;
  }, rows.join('\n'));
  await page.dispatchEvent('.import-drop', 'drop', { dataTransfer: file });
  await page.waitForSelector('.import-preview th');
  const roles = await page.$$eval('.import-role', (s) => s.map((x) => x.value));
  assert.deepEqual(roles, ['time', 'dimension', 'measure']);
  await page.selectOption('.import-database', 'demo');
  await page.click('.import-start');
  await page.waitForSelector('.import-status[data-state=error]');  // some rows were rejected
  assert.match(await page.textContent('.import-status'), /^250 rows written into demo\.rooms, 2 rejected/);
  const rejected = await page.$$eval('.import-rejected li', (ls) => ls.map((l) => l.textContent));
  assert.equal(rejected.length, 2);
  assert.ok(rejected.some((r) => r.startsWith('row 252:') && /not a time/.test(r)), rejected.join(' | '));
  assert.ok(rejected.some((r) => r.startsWith('row 251:') && /warm/.test(r)), rejected.join(' | '));
  await page.screenshot({ path: join(SHOTS, 'import.png') });
  // The rows are in the table: the counts match.
  await runQuery(page, 'SELECT count(*) FROM demo.rooms');
  await page.waitForSelector('#status[data-state=ok]');
  assert.equal(await page.textContent('.grid-row .grid-td'), '250');
  await page.close();
});

test('the grid draws a 100,000-row result a screen at a time', async () => {
  const page = await openConsole(server.url);
  await runQuery(page, 'SELECT a.x * 1000 + b.y AS n, a.x AS block FROM UNNEST(sequence(0, 99)) ' +
    'AS a(x) CROSS JOIN UNNEST(sequence(1, 1000)) AS b(y) ORDER BY n');
  await page.waitForSelector('#status[data-state=ok]', { timeout: 60000 });
  assert.match(await page.textContent('#status'), /^100000 rows/);
  const drawn = await page.$$eval('.grid-row', (rs) => rs.length);
  assert.ok(drawn < 200, `${drawn} rows in the DOM`);
  await page.$eval('.grid-viewport', (v) => { v.scrollTop = 24 * 50000; });
  await page.waitForSelector('.grid-row[data-row="50000"]');
  assert.equal(await page.textContent('.grid-row[data-row="50000"] .grid-td'), '50001');
  await page.close();
});

test('the operations view shows rates, running queries, storage per table and scheduled queries', async () => {
  const page = await openConsole(server.url);
  await page.click('[data-view=operations]');
  await page.waitForSelector('.ops-section >> text=Storage per table');
  const sections = await page.$$eval('.ops-section h3', (hs) => hs.map((h) => h.textContent));
  assert.deepEqual(sections, ['Rates', 'Running queries', 'Storage per table', 'Scheduled queries']);
  // Its own SHOW QUERIES is running while it lists them, with a Kill button.
  assert.ok(await page.$('.ops-kill'));
  const storage = await page.$$eval('.ops-section:nth-of-type(3) td:first-child', (ts) => ts.map((t) => t.textContent));
  assert.ok(storage.includes('demo.cpu'), storage.join(' | '));
  await page.screenshot({ path: join(SHOTS, 'operations.png') });
  await page.close();
});

test('cancel stops a running query', async () => {
  const slow = await startServer(['--testing-query-delay-ms', '60000']);
  try {
    const page = await openConsole(slow.url);
    await runQuery(page, 'SELECT 1');
    await page.waitForSelector('#status[data-state=running]');
    await page.click('#cancel');
    await page.waitForSelector('#status[data-state=error]');
    assert.match(await page.textContent('#status'), /Cancelled/);
    assert.equal(await page.isEnabled('#run'), true);
    // The server ended the query when the page dropped its request.
    let cancelled = 0;
    for (let i = 0; i < 100 && cancelled === 0; i++) {
      const metrics = await (await fetch(`${slow.url}metrics`)).text();
      cancelled = Number(metrics.match(/strata_queries_total\{code="CANCELLED"\} (\d+)/)?.[1] ?? 0);
      if (cancelled === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(cancelled, 1);
    await page.close();
  } finally {
    await stopServer(slow);
  }
});

test('a server that checks tokens asks for one, and a token sees the schema', async () => {
  const secured = await startServer(['--auth', 'on']);
  try {
    const token = readFileSync(join(secured.dir, 'data', 'admin.token'), 'utf8').trim();
    await loadDemo(secured, token);
    const page = await openConsole(secured.url);
    await page.waitForSelector('#login[open]');
    await page.screenshot({ path: join(SHOTS, 'login.png') });
    await page.fill('#token', token);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('.schema-tree >> text=demo');
    // Never in a URL: the token is in the tab's session storage only.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('strata.token')), token);
    assert.ok(!page.url().includes(token));
    await page.close();

    // A read-only token sees the data but cannot import: the page says why.
    const readOnly = execFileSync(CLI, ['-p', String(secured.grpc), '--token', token, 'token',
      'create', 'viewer', '--grant', 'read:*'], { encoding: 'utf8' }).trim().split('\n').pop().trim();
    const viewer = await openConsole(secured.url);
    await viewer.waitForSelector('#login[open]');
    await viewer.fill('#token', readOnly);
    await viewer.click('#login-form button[type=submit]');
    await viewer.waitForSelector('.schema-tree >> text=demo');
    await viewer.click('[data-view=import]');
    await viewer.setInputFiles('.import-file', {
      name: 'more.csv', mimeType: 'text/csv',
      buffer: Buffer.from(`time,host,usage\n${new Date().toISOString()},a,1\n`),
    });
    await viewer.selectOption('.import-database', 'demo');
    await viewer.click('.import-start');
    await viewer.waitForSelector('.import-status[data-state=error]');
    assert.match(await viewer.textContent('.import-status'), /may not write to demo/);
    await viewer.close();
  } finally {
    await stopServer(secured);
  }
});
