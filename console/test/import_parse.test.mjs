// Reading import files and turning their rows into line protocol
// (src/import_parse.js), without a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  detectFormat, guessRoles, parseCsv, readTable, rejectedLines, timeNanos, toLine,
} from '../src/import_parse.js';

test('the format comes from the name, else from the first line', () => {
  assert.equal(detectFormat('a.csv', ''), 'csv');
  assert.equal(detectFormat('a.ndjson', ''), 'jsonl');
  assert.equal(detectFormat('a.lp', ''), 'lp');
  assert.equal(detectFormat('data', '{"a": 1}\n'), 'jsonl');
  assert.equal(detectFormat('data', 'cpu,host=a usage=1 1700000000\n'), 'lp');
  assert.equal(detectFormat('data', 'time,host,usage\n'), 'csv');
});

test('CSV fields may be quoted, with quotes, commas and line breaks inside', () => {
  assert.deepEqual(parseCsv('a,b\r\n"x, y","say ""hi"""\n"two\nlines",3\n'),
    [['a', 'b'], ['x, y', 'say "hi"'], ['two\nlines', '3']]);
});

test('roles and types are guessed from the values', () => {
  const { columns, rows } = readTable('csv',
    'ts,host,usage,procs,up\n2024-03-01T12:00:00Z,a,1.5,3,true\n2024-03-01T12:00:10Z,b,2,4,false\n');
  assert.deepEqual(guessRoles(columns, rows), [
    { name: 'ts', role: 'time', type: 'varchar' },
    { name: 'host', role: 'dimension', type: 'varchar' },
    { name: 'usage', role: 'measure', type: 'double' },
    { name: 'procs', role: 'measure', type: 'bigint' },
    { name: 'up', role: 'measure', type: 'boolean' },
  ]);
});

test('times in seconds, milliseconds, nanoseconds or ISO text become nanoseconds', () => {
  assert.equal(timeNanos('1700000000'), '1700000000000000000');
  assert.equal(timeNanos(1700000000123), '1700000000123000000');
  assert.equal(timeNanos('1700000000123456789'), '1700000000123456789');
  assert.equal(timeNanos('2024-03-01T12:00:00.123456Z'), '1709294400123456000');
  assert.equal(timeNanos('2024-03-01 12:00:00'), '1709294400000000000');
  assert.equal(timeNanos('yesterday'), null);
});

test('a row becomes a line with its tags escaped and typed fields', () => {
  const roles = [
    { name: 'time', role: 'time', type: 'varchar' },
    { name: 'host name', role: 'dimension', type: 'varchar' },
    { name: 'usage', role: 'measure', type: 'double' },
    { name: 'procs', role: 'measure', type: 'bigint' },
    { name: 'note', role: 'measure', type: 'varchar' },
  ];
  assert.deepEqual(toLine('cpu', roles, ['1700000000', 'a,b', '1.5', '3', 'say "hi"']),
    { line: 'cpu,host\\ name=a\\,b usage=1.5,procs=3i,note="say \\"hi\\"" 1700000000000000000' });
  assert.deepEqual(toLine('cpu', roles, ['', 'a', '1', '2', '']), { error: 'no time: choose the time column' });
  assert.deepEqual(toLine('cpu', roles, ['1700000000', 'a', '', '', '']), { error: 'no measure value' });
});

test("a partial write's message gives each rejected line and its reason", () => {
  const message = "partial write: 2 lines rejected, 2 points written; line 3 'bad line': unable to " +
    "parse: a field must be key=value (column 5); line 2 'cpu,host=b usage=\"x\" 1': attribute " +
    '"usage" holds DOUBLE values in this table; this record writes VARCHAR dropped=2';
  assert.deepEqual(rejectedLines(message), [
    { line: 3, reason: 'unable to parse: a field must be key=value (column 5)' },
    { line: 2, reason: 'attribute "usage" holds DOUBLE values in this table; this record writes VARCHAR' },
  ]);
});
