// What happens on the wire, below the routes: requests Node's HTTP parser refuses get problem documents, and a
// request being answered when the service closes is answered, not cut off.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
let port: number;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  await rt.app!.listen({ port: 0, host: '127.0.0.1' });
  port = (rt.app!.server.address() as net.AddressInfo).port;
});
// The last test closes the runtime itself, as a shutdown does.
let closed = false;
after(() => (closed ? undefined : rt.close()));

/** Sends `chunks` over one connection, each after the previous one's pause, and reads until the server closes it or `until` matches. */
async function exchange(chunks: Array<string | { pauseMs: number } | { then: () => unknown }>, until = /\r\n\r\n[\s\S]*\}$/): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let answer = '';
  const done = new Promise<string>((resolve, reject) => {
    socket.on('data', (d) => {
      answer += d.toString('utf8');
      if (until.test(answer)) resolve(answer);
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
  for (const c of chunks) {
    if (typeof c === 'string') socket.write(c);
    else if ('pauseMs' in c) await new Promise((resolve) => setTimeout(resolve, c.pauseMs));
    else c.then();
  }
  try {
    return await done;
  } finally {
    socket.destroy();
  }
}

function problemOf(answer: string): { status: number; contentType: string; body: Record<string, unknown> } {
  const [head, body] = answer.split('\r\n\r\n');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head!)?.[1]), contentType: /content-type: ([^\r\n]+)/i.exec(head!)?.[1] ?? '', body: JSON.parse(body!) };
}

test('requests the HTTP parser refuses get a problem document: a control character in a header, two lengths, huge headers', async () => {
  const cases: Array<[string, number]> = [
    [`GET /v1/roles HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\x01b\r\n\r\n`, 400],
    [`POST /v1/roles HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`, 400],
    [`GET /v1/roles HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    // An expectation other than 100-continue: Node's own answer was a bare 417 without a body.
    [`POST /v1/roles HTTP/1.1\r\nHost: x\r\nExpect: junk\r\nx-request-id: 11111111-2222-3333-4444-555555555555\r\nContent-Length: 2\r\n\r\n{}`, 417],
  ];
  const counted = async () => (await rt.services.metrics.httpDuration.get()).values.filter((v) => v.metricName?.endsWith('_count') && v.labels.route === 'unmatched').reduce((n, v) => n + v.value, 0);
  const before = await counted();
  for (const [request, status] of cases) {
    const answer = await exchange([request]);
    const p = problemOf(answer);
    assert.equal(p.status, status, request.slice(0, 60));
    assert.equal(p.contentType, 'application/problem+json');
    assert.equal(p.body.status, status);
    assert.equal(typeof p.body.type, 'string');
    assert.equal(typeof p.body.detail, 'string');
    // As every other answer: a request id, the security headers, one title per type ("Bad request", as elsewhere).
    assert.match(answer, /\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    assert.match(answer, /\r\nx-content-type-options: nosniff\r\n/i);
    if (status === 400) assert.equal(p.body.title, 'Bad request');
    // A request whose head was read keeps the id its client sent.
    if (status === 417) assert.match(answer, /\r\nx-request-id: 11111111-2222-3333-4444-555555555555\r\n/);
  }
  assert.equal(await counted(), before + cases.length, 'each counted in the request durations');
});

test('a client gone mid-body is no request refused: nothing is answered or counted under unmatched', async () => {
  const counted = async () => (await rt.services.metrics.httpDuration.get()).values.filter((v) => v.metricName?.endsWith('_count') && v.labels.route === 'unmatched').reduce((n, v) => n + v.value, 0);
  const before = await counted();
  for (let i = 0; i < 3; i++) {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.write(`POST /v1/candidates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"candidates": [`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Half-closed, as a client that gives up on its upload closes: the parser meets the end of the stream mid-body.
    socket.resume();
    socket.end();
    await new Promise((resolve) => socket.once('close', resolve));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await counted(), before, 'the routed request was cut, not refused by the parser');
});

test('a compressed body, or one labelled compressed, is refused with a 415 naming the encoding, and nothing is written', async () => {
  const roles = async () => (await rt.db.query<{ n: number }>('SELECT count(*)::int AS n FROM roles')).rows[0]!.n;
  const before = await roles();
  for (const encoding of ['gzip', 'br']) {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: { ...rt.auth(), 'content-type': 'application/json', 'content-encoding': encoding }, payload: JSON.stringify({ title: 'T', description: 'D' }) });
    assert.equal(res.statusCode, 415, res.body);
    assert.match(res.json().detail, new RegExp(`Content-Encoding "${encoding}": send it uncompressed`));
  }
  const plain = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: { ...rt.auth(), 'content-type': 'application/json', 'content-encoding': 'identity' }, payload: JSON.stringify({ title: 'T', description: 'D' }) });
  assert.equal(plain.statusCode, 201, plain.body);
  assert.equal(await roles(), before + 1);
});

test('a client error of another status is its own problem type: a static file out of range is 416, not bad_request', async () => {
  const res = await rt.app!.inject({ url: '/index.html', headers: { range: 'bytes=99999999-' } });
  assert.equal(res.statusCode, 416);
  assert.deepEqual([res.json().type.split('/').at(-1), res.json().title], ['range_not_satisfiable', 'Range not satisfiable']);
});

test('a request whose body is still arriving when the service closes is answered, not cut off', async () => {
  const body = JSON.stringify({ title: 'Go engineer', description: 'Builds Go services.' });
  const head = `POST /v1/roles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  // The client keeps its connection, as keep-alive pools do: the answer must close it, or the close waits for ever.
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let answer = '';
  socket.on('data', (d) => (answer += d.toString('utf8')));
  const closedByServer = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head + body.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 200));
  closed = true;
  const closing = rt.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.write(body.slice(10));
  const started = Date.now();
  await closedByServer;
  assert.match(answer, /^HTTP\/1\.1 201 /, answer.slice(0, 300));
  assert.match(answer, /\r\nconnection: close\r\n/i, answer.split('\r\n\r\n')[0]);
  await closing;
  assert.ok(Date.now() - started < 1_500, `the close took ${Date.now() - started} ms after the answer`);
});

test('an upload still being written when the service closes is answered within the grace, not cut after 2 s', async () => {
  const own = await startTestRuntime({ PROCESS_ROLE: 'api', SHUTDOWN_GRACE_MS: '6000' });
  try {
    await own.app!.listen({ port: 0, host: '127.0.0.1' });
    const ownPort = (own.app!.server.address() as net.AddressInfo).port;
    // An upload that takes 3 s to write, as 500 long resumes do on a busy machine.
    const upsert = own.services.candidates.upsert.bind(own.services.candidates);
    own.services.candidates.upsert = async (...args: Parameters<typeof upsert>) => (await new Promise((r) => setTimeout(r, 3_000)), upsert(...args));
    const answer = fetch(`http://127.0.0.1:${ownPort}/v1/candidates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ candidates: [{ externalId: 'slow-1', resume: 'Go engineer.' }] }),
    });
    await new Promise((r) => setTimeout(r, 300));
    const closing = own.close();
    // Meanwhile the server still listens: a new request is told 503 with Retry-After (to retry elsewhere), on a new
    // connection, not refused one (the listener was closed at once, and every new client got ECONNREFUSED).
    await new Promise((r) => setTimeout(r, 300));
    const late = await fetch(`http://127.0.0.1:${ownPort}/v1/roles`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    assert.equal(late.status, 503);
    assert.ok(Number(late.headers.get('retry-after')) > 0);
    assert.equal(late.headers.get('connection'), 'close');
    const res = await answer;
    assert.equal(res.status, 200, await res.text());
    await closing;
  } finally {
    await own.close();
  }
});
