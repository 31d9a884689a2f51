// The lazy request logger: no pino child for a request that logs nothing; a line that is logged is the line fastify's
// own child would have written (request id, serializers), errors included.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { loggerOptions } from '../../src/logger.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { lazyChildLoggerFactory } from '../../src/http/request-logger.js';

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
  const app = Fastify({
    loggerInstance: log.logger as FastifyBaseLogger,
    childLoggerFactory: lazyChildLoggerFactory,
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
  await app.ready();
  // Count the children asked of fastify's logger, the parent of every request logger.
  let children = 0;
  const child = app.log.child.bind(app.log);
  app.log.child = ((...args: Parameters<typeof child>) => {
    children++;
    return child(...args);
  }) as typeof app.log.child;
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

test('lazy request logger: a child per logging request only, with fastify’s request lines at info', async () => {
  const quiet = await appWith('warn');
  const start = quiet.children();
  for (let i = 0; i < 5; i++) await quiet.app.inject({ url: '/ok' });
  assert.equal(quiet.children(), start, 'no pino child for requests that log nothing');
  await quiet.app.inject({ url: '/boom' });
  assert.equal(quiet.children(), start + 1, 'one for the request that logged');
  await quiet.app.close();

  const chatty = await appWith('info');
  const res = await chatty.app.inject({ url: '/ok' });
  await flush();
  assert.equal(chatty.children(), 1);
  const mine = chatty.lines.filter((l) => l.reqId === res.headers['x-request-id']);
  assert.deepEqual(mine.map((l) => l.msg), ['incoming request', 'request completed'], JSON.stringify(mine));
  assert.equal((mine[1]!.res as { statusCode: number }).statusCode, 200, 'fastify’s serializers apply');
  assert.deepEqual(Object.keys(mine[0]!.req as object).sort(), ['host', 'method', 'remoteAddress', 'url']);
  await chatty.app.close();
});
