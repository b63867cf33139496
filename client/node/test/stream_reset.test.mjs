// How the Writer takes a call whose HTTP/2 stream is reset under it. A restarting stratad
// closes its connections with calls still on the way, and grpc-js reports those as INTERNAL
// "Received RST_STREAM ..." (a CI run lost a write to it); when that happens is up to the
// scheduler, so here a bare HTTP/2 listener resets the stream on purpose, every time.
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { test } from 'node:test';
import strata from '../lib/index.js';

const { Client, StrataError } = strata;

// Answers WriteRecords: `answers` says, call by call, 'reset' (RST_STREAM INTERNAL_ERROR),
// 'internal' (the server's own grpc-status 13) or 'ok' (an empty WriteRecordsResponse).
async function listen(answers) {
  const calls = [];
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    const answer = answers[calls.length] ?? 'ok';
    calls.push(headers[':path']);
    stream.on('error', () => {});
    stream.resume();
    if (answer === 'reset') {
      stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    } else if (answer === 'internal') {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '13',
        'grpc-message': 'a bug' }, { endStream: true });
    } else {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.alloc(5)); // an uncompressed message of 0 bytes
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { calls, port: server.address().port, close: () => server.close() };
}

async function writeOne(port) {
  const client = new Client(`127.0.0.1:${port}`, { timeoutMs: 5_000 });
  const writer = client.writer('db', 'tbl', { batchSize: 1, backoffMs: 1 });
  try {
    await writer.add({ dimensions: { host: 'a' }, measureName: 'm', time: 1n, measures: { v: 1 } });
    return await writer.close();
  } finally {
    client.close();
  }
}

test('a write whose stream the connection reset is sent again', async () => {
  const server = await listen(['reset', 'reset', 'ok']);
  try {
    const summary = await writeOne(server.port);
    assert.deepEqual([summary.requests, summary.retries], [3, 2]);
    assert.deepEqual(server.calls, Array(3).fill('/strata.v1.WriteService/WriteRecords'));
  } finally {
    server.close();
  }
});

test("the server's own INTERNAL is not retried", async () => {
  const server = await listen(['internal']);
  try {
    await assert.rejects(writeOne(server.port),
      (e) => e instanceof StrataError && e.code === 'INTERNAL' && e.details === 'a bug');
    assert.equal(server.calls.length, 1);
  } finally {
    server.close();
  }
});
