// The model client's fetch: what the SDK relies on (status, headers, body, aborts, compressed answers, refused connections).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import zlib from 'node:zlib';
import { createHttpFetch, ResponseTooLargeError } from '../../src/llm/http-fetch.js';

let server: http.Server;
let base: string;
const httpFetch = createHttpFetch();
let resolveDeclared: (bodySent: boolean) => void;
const declaredBodySent = new Promise<boolean>((resolve) => (resolveDeclared = resolve));
let resolveEndless: (bytes: number) => void;
const endlessClosed = new Promise<number>((resolve) => (resolveEndless = resolve));
// 8 MiB of zeros, about 8 KB compressed.
const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024));

/** Writes 64 KiB chunks as the client reads them until it closes the socket (or, were nothing enforced, 64 MiB). */
function endless(res: http.ServerResponse): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let sent = 0;
  const write = () => {
    while (!res.destroyed && sent < 64 * 1024 * 1024) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', write);
    }
    res.end();
  };
  res.on('close', () => resolveEndless(sent));
  res.writeHead(200, { 'content-type': 'application/json' });
  write();
}

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
      } else if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(1024 * 1024) });
        res.flushHeaders();
        // Sent a moment later: a client that refuses on the header has closed the socket by then.
        setTimeout(() => {
          resolveDeclared(!res.destroyed);
          res.end(Buffer.alloc(1024 * 1024, 'x'));
        }, 50);
      } else if (req.url === '/endless') {
        endless(res);
      } else if (req.url === '/bomb') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
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

test('an answer past the cap is refused at the cap: declared, streamed without end, or inflated from a small gzip', async () => {
  const capped = createHttpFetch({ maxResponseBytes: 64 * 1024 });
  const tooLarge = (status: number) => (err: unknown) => err instanceof ResponseTooLargeError && err.limitBytes === 64 * 1024 && err.status === status;
  await assert.rejects(capped(`${base}/declared`), tooLarge(200));
  assert.equal(await declaredBodySent, false, 'refused on its content-length, before the body');
  await assert.rejects(capped(`${base}/endless`), tooLarge(200));
  const closed = await endlessClosed;
  assert.ok(closed < 16 * 1024 * 1024, `the server stopped when the socket closed, after ${closed} bytes`);
  await assert.rejects(capped(`${base}/bomb`), tooLarge(200));
  // An answer within the cap, on the same agent, is read as before.
  assert.equal((await capped(`${base}/echo`, { method: 'POST', body: 'x' })).status, 201);
  assert.deepEqual(await (await capped(`${base}/gzip`)).json(), { compressed: true });
});
