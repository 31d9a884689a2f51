// The model client's fetch: what the SDK relies on (status, headers, body, aborts, compressed answers, refused connections).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { createHttpFetch } from '../../src/llm/http-fetch.js';

let server: http.Server;
let base: string;
const httpFetch = createHttpFetch();

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      if (req.url === '/echo') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req_1' });
        res.end(JSON.stringify({ method: req.method, body, agent: req.headers['x-agent'] }));
      } else if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(zlib.gzipSync(JSON.stringify({ compressed: true })));
      } else if (req.url === '/empty') {
        res.writeHead(204);
        res.end();
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 5_000).unref();
      } else {
        res.writeHead(404);
        res.end('{"error":{"message":"no such route"}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('sends method, headers and body; answers with status, headers and body', async () => {
  const res = await httpFetch(`${base}/echo`, { method: 'POST', headers: { 'x-agent': 'scorer', 'content-type': 'application/json' }, body: '{"a":1}' });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('x-request-id'), 'req_1');
  assert.deepEqual(await res.json(), { method: 'POST', body: '{"a":1}', agent: 'scorer' });
  const missing = await httpFetch(`${base}/nope`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /no such route/);
});

test('a compressed answer is decoded, and its encoding and length headers dropped', async () => {
  const res = await httpFetch(`${base}/gzip`);
  assert.deepEqual(await res.json(), { compressed: true });
  assert.equal(res.headers.get('content-encoding'), null);
});

test('an answer without content has no body', async () => {
  const res = await httpFetch(`${base}/empty`, { method: 'DELETE' });
  assert.equal(res.status, 204);
  assert.equal(res.body, null);
});

test('an abort rejects with an AbortError, before or during the request', async () => {
  const early = new AbortController();
  early.abort();
  await assert.rejects(httpFetch(`${base}/echo`, { signal: early.signal }), { name: 'AbortError' });
  const late = new AbortController();
  setTimeout(() => late.abort(), 50);
  await assert.rejects(httpFetch(`${base}/slow`, { signal: late.signal }), { name: 'AbortError' });
});

test('a refused connection rejects; bodies it cannot send are refused up front', async () => {
  await assert.rejects(httpFetch('http://127.0.0.1:1/x'), { code: 'ECONNREFUSED' });
  await assert.rejects(httpFetch(`${base}/echo`, { method: 'POST', body: new FormData() }), TypeError);
});
