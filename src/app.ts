// buildApp(config, services): the fastify instance with every route registered explicitly; it never listens. A worker
// process gets the same instance with the operations routes alone (/healthz, /readyz, /metrics).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import fastifyCors from '@fastify/cors';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import { AppError, BadRequestError, ServiceUnavailableError, TooManyRequestsError } from './errors.js';
import { registerAuth } from './http/auth.js';
import { fastValidatorCompiler } from './http/validation.js';
import { registerErrorHandling, sendFrameworkProblem } from './http/error-handler.js';
import { FinishedRunCache } from './http/finished-runs.js';
import { completeDocument } from './http/openapi.js';
import { PROBLEM_CONTENT_TYPE, problem } from './http/problem.js';
import { requestLoggerFactory } from './http/request-logger.js';
import { docsSecurityHeaders, isDocsUrl, securityHeaders } from './http/security-headers.js';
import { SharedRateLimitStore } from './http/rate-limit-store.js';
import { candidateRoutes } from './http/routes/candidates.js';
import { healthRoutes } from './http/routes/health.js';
import { roleRoutes } from './http/routes/roles.js';
import { runRoutes } from './http/routes/matching-runs.js';
import { usageRoutes } from './http/routes/usage.js';
import type { Worker } from './runs/worker.js';
import type { Services } from './services.js';

/**
 * An empty query value is the parameter left out: `?cursor=` on a first page, or `?from=&to=` left blank, as API.md
 * itself writes them; they were refused as a bad cursor or date. A value given twice stays an array (refused so).
 */
function parseQueryWithoutEmpties(query: string): Record<string, unknown> {
  if (query.length === 0) return {};
  const parsed = parseQuery(query);
  for (const key of Object.keys(parsed)) if (parsed[key] === '') delete parsed[key];
  return parsed;
}

// Fatal: a byte sequence that is not UTF-8 throws instead of becoming U+FFFD. A byte order mark is dropped.
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const notIdentity = (encoding: string) =>
  new AppError(415, 'unsupported_media_type', 'Unsupported media type', `The body is sent with Content-Encoding ${JSON.stringify(encoding.slice(0, 40))}: send it uncompressed (no Content-Encoding, or identity).`);

const notUtf8Charset = (charset: string) =>
  new AppError(415, 'unsupported_media_type', 'Unsupported media type', `JSON is sent as UTF-8; this body says it is ${JSON.stringify(charset.slice(0, 40))}. Send it as UTF-8, with charset=utf-8 or no charset.`);

/** The request's id: the client's x-request-id if it is a safe one, else a new one. */
function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}

/**
 * Answers a request Node's HTTP parser refused (or whose Expect it cannot meet), as a problem document with a request
 * id and the security headers, counted in the request durations; a connection already broken is just closed.
 */
function clientErrorAnswerer(headers: Record<string, string>, observe: (status: number) => void) {
  const head = (status: number, body: string, requestId: string) =>
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      `x-request-id: ${requestId}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'Connection: close',
    ].join('\r\n');
  const answer = (status: number, type: string, title: string, detail: string, requestId: string = crypto.randomUUID()) => {
    const body = JSON.stringify(problem(status, type, title, detail));
    observe(status);
    return `${head(status, body, requestId)}\r\n\r\n${body}`;
  };
  return {
    clientError(err: Error & { code?: string }, socket: Duplex): void {
      // A client gone (reset, or its stream ended mid-request: HPE_INVALID_EOF_STATE) has no one to answer, and its
      // request, routed already, is no request the parser refused.
      if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || !socket.writable) {
        socket.destroy();
        return;
      }
      socket.end(
        err.code === 'HPE_HEADER_OVERFLOW'
          ? answer(431, 'headers_too_large', 'Request headers too large', 'The request headers are too large.')
          : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? answer(408, 'request_timeout', 'Request timeout', 'The request did not arrive in time.')
            : answer(400, 'bad_request', 'Bad request', `The request is not valid HTTP (${String(err.code ?? 'unreadable').slice(0, 40)}): a malformed request line, header or chunk, a control character in a header, or a body length given twice or in two ways.`),
      );
    },
    /** An Expect header other than 100-continue: Node answered a bare 417 without a body. */
    expectation(req: IncomingMessage, res: ServerResponse): void {
      res.socket?.end(answer(417, 'expectation_failed', 'Expectation failed', 'The only expectation this server meets is "Expect: 100-continue".', requestIdOf(req)));
    },
  };
}

const prototypeKey = () =>
  new BadRequestError('The body has a "__proto__" key, or a "constructor" key holding a "prototype", which could change the prototypes of objects: rename or remove it.');

function isJson(body: string): boolean {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() as the request's first hook ran: its duration is measured from here. */
    startedAt: number;
  }
}

const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
export interface AppOptions {
  loggerInstance?: Logger;
  /** The process's worker, if it has one: in a worker process /readyz also asks it whether it is working. */
  worker?: Pick<Worker, 'notReady'> | null;
}

export async function buildApp(config: Config, services: Services, opts: AppOptions = {}): Promise<FastifyInstance> {
  const security = securityHeaders();
  // Requests refused before routing are counted as any other answer, under no route.
  const refusedAnswer = (status: number) => services.metrics.httpDuration.labels('UNKNOWN', 'unmatched', String(status)).observe(0);
  const refused = clientErrorAnswerer(security, refusedAnswer);
  const app = Fastify({
    // fastify gets no logger of its own: with one (or with any onResponse hook) it adds and removes a pair of
    // listeners on every response to learn when it finished, work a polled 304 does not need (docs/benchmarks.md,
    // sixteenth session). Nothing is logged less for it: request.log is a child of the service's logger, made only
    // when something logs through it (src/http/request-logger.ts), and fastify's own lines about a request (an
    // error, a reply sent twice) go through it.
    logger: false,
    ...(opts.loggerInstance ? { childLoggerFactory: requestLoggerFactory(opts.loggerInstance) } : {}),
    bodyLimit: 1024 * 1024,
    genReqId: requestIdOf,
    requestIdHeader: false,
    routerOptions: { querystringParser: parseQueryWithoutEmpties },
    ajv: { customOptions: { removeAdditional: false } },
    // On close, connections without a request in flight are closed at once; a request being answered (an upload taking
    // seconds) is answered first. All of them closed, a client got no answer and could not tell whether its write was
    // kept. The process's shutdown deadline (close-with-grace) still bounds the wait.
    forceCloseConnections: 'idle',
    // A client that stops sending half-way through its request gives its connection back after this long (fastify's
    // default is never): the whole request, head and body, must arrive within it.
    requestTimeout: 120_000,
    // Requests Node's parser refuses (a control character in a header, conflicting lengths, headers too large) are
    // answered with a problem document too, not fastify's own JSON.
    clientErrorHandler: refused.clientError,
    // A path the router cannot read (bad percent-encoding, a parameter over 100 characters) is refused before any
    // hook runs: the answer gets the headers the onRequest hook below would have set, and is a problem document.
    frameworkErrors: (err, request, reply) => {
      reply.header('x-request-id', request.id);
      reply.headers(security);
      const answered = sendFrameworkProblem(err, request, reply);
      services.metrics.httpDuration.labels(request.method, 'unmatched', String(reply.statusCode)).observe(0);
      return answered;
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.server.on('checkExpectation', refused.expectation);

  // zod for every schema, with a compiled check in front of it for { id: uuid } params (src/http/validation.ts).
  app.setValidatorCompiler(fastValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // JSON only: a text/plain body is a 415, not a schema error, and it is the content type a browser
  // may send cross-origin without a preflight.
  app.removeContentTypeParser('text/plain');
  // A JSON content type over an empty body is no body (content of length 0), as when a client that labels every
  // request JSON cancels a run or erases a candidate: fastify's parser answered such a request 400. A route that
  // needs a body still refuses it, by its schema, naming `body`. Everything else is fastify's own parser, which also
  // refuses keys that could change prototypes, in the words it has for malformed JSON: such a body is valid JSON, and
  // the answer says what is wrong with it instead.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // JSON is UTF-8 (RFC 8259): a body that is not was stored with U+FFFD where its bytes were, and a charset naming
  // another encoding was ignored. Both are refused, and nothing is written.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw: Buffer, done) => {
    // A compressed body was read as bytes of JSON ("not valid UTF-8"), and a plain one labelled gzip was stored.
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && !/^\s*identity\s*$/i.test(encoding)) return done(notIdentity(encoding), undefined);
    if (raw.length === 0) return done(null, undefined);
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) return done(notUtf8Charset(charset), undefined);
    let body: string;
    try {
      body = UTF8.decode(raw);
    } catch {
      return done(new BadRequestError('The body is not valid UTF-8: send JSON encoded as UTF-8.'), undefined);
    }
    parseJson(request, body, (err, parsed) => done(err && isJson(body) ? prototypeKey() : err, parsed));
  });
  registerErrorHandling(app);

  // Hooks on every request are callback-style: an async hook costs a promise per request. One hook sets the
  // request id and the security headers (helmet's set, computed once) and refuses requests while shutting down.
  const docsSecurity = docsSecurityHeaders();
  app.decorateRequest('startedAt', 0);
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    services.lifecycle.underWay++;
    reply.header('x-request-id', request.id);
    reply.headers(isDocsUrl(request.url) ? docsSecurity : security);
    done(services.lifecycle.closing ? new ServiceUnavailableError('The service is shutting down; retry shortly.') : undefined);
  });
  // A request's duration is observed as its answer is sent (onSend: an onResponse hook would bring back the listeners
  // above). One histogram child per method, route and status, looked up by a string instead of hashing labels.
  const durations = new Map<string, { observe(seconds: number): void }>();
  app.addHook('onSend', (request, reply, payload, done) => {
    services.lifecycle.underWay--;
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = durations.get(key);
    if (!child) durations.set(key, (child = services.metrics.httpDuration.labels(request.method, route, String(reply.statusCode))));
    child.observe((performance.now() - request.startedAt) / 1000);
    // While shutting down, an answer closes its connection: a client's kept-alive connection would otherwise hold the
    // server's close (it closes only idle ones) until the process is killed at its deadline.
    if (services.lifecycle.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // fastify writes its access line ('request completed', at info) once a response has finished, which it learns from
  // those listeners: where info lines are wanted, an onResponse hook asks for them.
  if (opts.loggerInstance?.isLevelEnabled('info')) app.addHook('onResponse', (_request, _reply, done) => done());

  // A worker process serves the operations routes alone: /v1, /docs and the page answer 404 like any unknown route.
  const servesApi = config.PROCESS_ROLE !== 'worker';
  // Before the routes: the OpenAPI document lists the routes registered after it.
  if (servesApi) await registerApiPlugins(app, config);
  const worker = opts.worker;
  await app.register(healthRoutes, {
    db: services.db,
    metrics: services.metrics,
    expectedMigrations: services.expectedMigrations,
    refreshGauges: services.refreshQueueGauges,
    // An api or all process is ready when it can serve requests; a worker process when its worker is working.
    ...(!servesApi && worker ? { workerNotReady: () => worker.notReady() } : {}),
  });
  if (servesApi) await registerV1(app, config, services);
  return app;
}

/** CORS, rate limits, the OpenAPI document with its UI, and the recruiter page. */
async function registerApiPlugins(app: FastifyInstance, config: Config): Promise<void> {
  // Without allowed origins there is nothing to answer a browser's cross-origin request with: no CORS hook at all.
  if (config.CORS_ORIGINS.length) {
    await app.register(fastifyCors, {
      origin: config.CORS_ORIGINS,
      // @fastify/cors allows GET, HEAD and POST unless told: a browser could not erase a candidate (DELETE).
      methods: ['GET', 'HEAD', 'POST', 'DELETE'],
      exposedHeaders: ['etag', 'location', 'retry-after', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'],
      // x-request-id: a client's own id comes back on the answer and in the logs (docs/api.md); a preflight that did
      // not allow it made the browser refuse the whole request.
      allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id'],
    });
  }
  await app.register(fastifyRateLimit, {
    global: false,
    store: SharedRateLimitStore,
    // Keyed by the authenticated key (the limiter runs after auth), so one client cannot exhaust another's
    // allowance, and spelling the header differently ("bearer", extra spaces) does not buy a fresh one.
    keyGenerator: (request) => {
      if (request.caller) return request.caller.keyId;
      return createHash('sha256').update(request.headers.authorization ?? request.ip).digest('base64url').slice(0, 22);
    },
    // Retry-After is set by the plugin; the answer is a problem document like every other error.
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      return new TooManyRequestsError(`This API key has used its ${context.max} requests of this kind for the current minute; retry in ${seconds} s.`, seconds);
    },
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'talent-matcher',
        version: '1.0.0',
        description: 'Turns a job role into a ranked, explained shortlist of candidates. Errors are RFC 9457 problem documents.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    // What the route schemas cannot say (problem media type, headers, routes without a key): src/http/openapi.ts.
    transformObject: (documentObject) => completeDocument(jsonSchemaTransformObject(documentObject)),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  if (existsSync(PUBLIC_DIR)) {
    await app.register(fastifyStatic, { root: PUBLIC_DIR, prefix: '/', index: 'index.html', wildcard: false });
  }
}

async function registerV1(app: FastifyInstance, config: Config, services: Services): Promise<void> {
  await app.register(async (v1) => {
    registerAuth(v1, services.apiKeys);
    // One allowance per group and key, across every route of the group (see SharedRateLimitStore).
    const writeRateLimit = { max: config.RATE_LIMIT_WRITES_PER_MINUTE, timeWindow: 60_000, groupId: 'writes' };
    const runRateLimit = { max: config.RATE_LIMIT_RUNS_PER_MINUTE, timeWindow: 60_000, groupId: 'runs' };
    const finishedRuns = new FinishedRunCache(config.CACHE_TTL_MS, { now: services.cacheNow });
    await v1.register(candidateRoutes, {
      candidates: services.candidates,
      candidateStore: services.candidateStore,
      // What every process remembers of the pool itself (skill vocabulary, term statistics) checks the organisation's
      // erasure count at its next use (src/cache/erasure-epoch.ts); finished runs' answers are dropped here at once.
      onErased: (orgId) => {
        finishedRuns.forgetOrganisation(orgId);
        // This process's model requests waiting to carry the candidate's text are checked against the database again.
        services.erasureGuard.erased(orgId);
      },
      writeRateLimit,
    });
    await v1.register(roleRoutes, { roleStore: services.roleStore, writeRateLimit });
    await v1.register(runRoutes, { runs: services.runs, finishedRuns, runRateLimit });
    await v1.register(usageRoutes, { usage: services.usage });
  });
}
