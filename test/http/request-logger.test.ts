// The request logger: fastify has no logger of its own (src/app.ts), request.log is a lazy child of the service's, made
// only for a request that logs; a line that is logged is the line fastify's own child would have written (request id,
// serializers), errors and fastify's access lines included.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { loggerOptions } from '../../src/logger.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { requestLoggerFactory } from '../../src/http/request-logger.js';
import { startTestRuntime } from '../support/runtime.js';

function capturedLogger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino(loggerOptions(level, { pretty: false }), sink);
  return { logger, lines };
}

async function appWith(level: string) {
  const log = capturedLogger(level);
  // Count the children made of the service's logger or of its children (pino's inherit the counting method).
  let children = 0;
  const logger = log.logger as FastifyBaseLogger;
  const child = logger.child;
  logger.child = function (this: FastifyBaseLogger, ...args: Parameters<typeof child>) {
    children++;
    return child.apply(this, args);
  } as typeof child;
  const app = Fastify({
    logger: false,
    childLoggerFactory: requestLoggerFactory(logger),
    genReqId: () => crypto.randomUUID(),
    requestIdHeader: false,
  });
  registerErrorHandling(app);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.get('/ok', () => ({ ok: true }));
  app.get('/boom', () => {
    throw new Error('kaboom');
  });
  app.get('/logs', (request) => {
    request.log.warn({ detail: 1 }, 'a warning from a handler');
    request.log.debug('never written at warn');
    return { ok: true };
  });
  app.get('/twice', (_request, reply) => {
    void reply.send({ first: true });
    return { second: true };
  });
  await app.ready();
  return { app, ...log, children: () => children };
}

const flush = () => new Promise((r) => setImmediate(r));

test('lazy request logger: nothing is made while nothing logs; errors are logged with the request id', async () => {
  const { app, lines } = await appWith('warn');
  const before = lines.length;
  assert.equal((await app.inject({ url: '/ok' })).statusCode, 200);
  await flush();
  assert.equal(lines.length, before, 'a successful request at warn writes nothing');

  const res = await app.inject({ url: '/boom' });
  assert.equal(res.statusCode, 500);
  await flush();
  const line = lines.find((l) => l.msg === 'unhandled error');
  assert.ok(line, 'the error was logged');
  assert.equal(line.reqId, res.headers['x-request-id'], 'with the request id the client saw');
  assert.equal(line.level, 50);
  assert.equal((line.err as { message: string }).message, 'kaboom');

  const warned = await app.inject({ url: '/logs' });
  await flush();
  const warning = lines.find((l) => l.msg === 'a warning from a handler');
  assert.ok(warning);
  assert.equal(warning.reqId, warned.headers['x-request-id']);
  assert.equal(warning.detail, 1);
  assert.ok(!lines.some((l) => l.msg === 'never written at warn'));
  await app.close();
});

test('lazy request logger: a child per logging request only; fastify’s own warnings reach the service’s logger', async () => {
  const quiet = await appWith('warn');
  const start = quiet.children();
  for (let i = 0; i < 5; i++) await quiet.app.inject({ url: '/ok' });
  assert.equal(quiet.children(), start, 'no pino child for requests that log nothing');
  await quiet.app.inject({ url: '/boom' });
  assert.equal(quiet.children(), start + 1, 'one for the request that logged');
  // A handler that sends and also returns: fastify warns through the request's logger, as it did with its own.
  const twice = await quiet.app.inject({ url: '/twice' });
  await flush();
  const warning = quiet.lines.find((l) => l.reqId === twice.headers['x-request-id']);
  assert.match(String(warning?.msg), /Reply was already sent/, JSON.stringify(quiet.lines));
  await quiet.app.close();
});

test('the service at LOG_LEVEL=info: fastify’s request lines with the request id and its serializers, and none at warn', async () => {
  const chatty = await startTestRuntime({ LOG_LEVEL: 'info', PROCESS_ROLE: 'api' });
  try {
    const res = await chatty.app.inject({ url: '/healthz' });
    await flush();
    const mine = chatty.logs.filter((l) => l.reqId === res.headers['x-request-id']);
    assert.deepEqual(mine.map((l) => l.msg), ['incoming request', 'request completed'], JSON.stringify(mine));
    assert.deepEqual(mine[1]!.res, { statusCode: 200 }, 'fastify’s serializers apply');
    assert.equal(typeof mine[1]!.responseTime, 'number');
    assert.deepEqual(Object.keys(mine[0]!.req as object).sort(), ['host', 'method', 'remoteAddress', 'url']);
    // A key sent in the query string (refused 401) is not logged; the parameters the API reads are.
    const keyed = await chatty.app.inject({ url: '/v1/roles?limit=5&api_key=tm_secret_in_query&cursor=abc' });
    assert.equal(keyed.statusCode, 401);
    await flush();
    const lines = chatty.logs.filter((l) => l.reqId === keyed.headers['x-request-id']);
    assert.ok(lines.length > 0);
    assert.ok(!JSON.stringify(chatty.logs).includes('tm_secret_in_query'), 'the key is in no log line');
    assert.equal((lines[0]!.req as { url: string }).url, '/v1/roles?limit=5&api_key=[REDACTED]&cursor=abc');
  } finally {
    await chatty.close();
  }
  const quiet = await startTestRuntime({ LOG_LEVEL: 'warn', PROCESS_ROLE: 'api' });
  try {
    const before = quiet.logs.length;
    assert.equal((await quiet.app.inject({ url: '/healthz' })).statusCode, 200);
    await flush();
    assert.equal(quiet.logs.length, before, 'nothing for a successful request at warn');
  } finally {
    await quiet.close();
  }
});
