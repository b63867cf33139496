// node-postgres (npm `pg`) against Strata's PostgreSQL port: parameterized
// queries over the extended protocol, typed values back, a named prepared
// statement, and an error's SQLSTATE and position. Prints "all checks
// passed" or exits non-zero at the first mismatch.
// Usage: pg_client.mjs PORT [PASSWORD]
import assert from 'node:assert/strict';
import pg from 'pg';

// BIGINT as BigInt: node-postgres leaves int8 as text unless told (it cannot fit a double).
pg.types.setTypeParser(20, (text) => BigInt(text));

const [port, password] = process.argv.slice(2);
const client = new pg.Client({ host: '127.0.0.1', port: Number(port), user: 'node', database: 'strata', password });
await client.connect();
try {
  let r = await client.query(
    'SELECT host, usage, procs, up, time FROM mydb.cpu WHERE host = $1 AND usage > $2 ORDER BY time',
    ['a', 1]);
  assert.equal(r.rows.length, 2);
  assert.deepEqual(r.rows[0], {
    host: 'a', usage: 1.5, procs: 3n, up: true, time: new Date('2024-03-01T11:00:10Z'),
  });
  assert.equal(r.rows[1].procs, null);
  assert.deepEqual(r.fields.map((f) => f.dataTypeID), [25, 701, 20, 16, 1184]);
  console.log('ok typed rows');

  // node-postgres sends every parameter as untyped text: '3' meets a BIGINT column.
  r = await client.query('SELECT count(*) AS n FROM mydb.cpu WHERE procs = $1', [3]);
  assert.equal(r.rows[0].n, 1n);
  r = await client.query('SELECT count(*) AS n FROM mydb.cpu WHERE time >= $1', [new Date('2024-03-01T11:00:30Z')]);
  assert.equal(r.rows[0].n, 2n);
  console.log('ok untyped parameters');

  // A JS array parameter is array text ({"a","x"}), which = ANY reads; an array comes back
  // as PostgreSQL's array (text[] 1009, float8[] 1022), which node-postgres parses.
  r = await client.query('SELECT count(*) AS n FROM mydb.cpu WHERE host = ANY($1)', [['a', 'x']]);
  assert.equal(r.rows[0].n, 2n);
  r = await client.query(`SELECT ARRAY['a b', NULL, 'x"y'] AS t, ARRAY[1.5, 2] AS d`);
  assert.deepEqual(r.rows[0], { t: ['a b', null, 'x"y'], d: [1.5, 2] });
  assert.deepEqual(r.fields.map((f) => f.dataTypeID), [1009, 1022]);
  console.log('ok arrays');

  for (let i = 0; i < 3; i++) {
    r = await client.query({ name: 'by-host', text: 'SELECT count(*) AS n FROM mydb.cpu WHERE host = $1', values: ['b'] });
    assert.equal(r.rows[0].n, 1n);
  }
  console.log('ok named prepared statement');

  await assert.rejects(client.query('SELECT usage FROM mydb.cpu WHERE hots = $1', ['a']), (e) => {
    assert.equal(e.code, '42703');
    assert.equal(e.position, '34');
    assert.match(e.message, /column "hots" does not exist; did you mean "host"\?/);
    return true;
  });
  console.log('ok error with position');
  r = await client.query('SELECT 1 AS one');
  assert.equal(r.rows[0].one, 1n);
  console.log('all checks passed');
} finally {
  await client.end();
}
