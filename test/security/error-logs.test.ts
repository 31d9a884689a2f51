// Errors that carry personal data never put it in a log line: a database error's failing row and quoted values, a
// model server's error body that echoes the request. What an operator diagnoses by (SQLSTATE, constraint, table,
// column, HTTP status, request id) is still there.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { Database } from '../../src/db/database.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { requestLoggerFactory } from '../../src/http/request-logger.js';
import { errorText } from '../../src/log-errors.js';
import { loggerOptions } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';
import { fakeReply, startFakeLlmServer, type RecordedRequest } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startRunUntil, startTestRuntime } from '../support/runtime.js';
import { scriptedModel, userText } from '../support/scripted-model.js';

const PERSON = { name: 'Jane Roe', email: 'jane.roe@example.com', phone: '+44 20 7946 0321', resume: 'Wrote the zorblaxian ledger' };
// The phone's digits as a phone shows them, spaced or run together: four digits alone also turn up in log timestamps
// (epoch milliseconds) and durations.
const PII = [PERSON.name, PERSON.email, 'jane.roe', '7946 0321', '79460321', '20 7946', 'zorblaxian'];

function assertNoPii(text: string, where: string): void {
  for (const piece of PII) assert.ok(!text.includes(piece), `"${piece}" appears in ${where}: ${text.slice(0, 3000)}`);
}

function captured() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { logger: pino(loggerOptions('debug', { pretty: false }), sink), lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

let db: Database;
let orgId: string;
before(async () => {
  db = await createTestDatabase();
  orgId = (await db.query<{ id: string }>("INSERT INTO organisations (name) VALUES ('error-logs') RETURNING id")).rows[0]!.id;
});
after(() => db.close());

/** A candidate row, straight into the table, whose key is an email (ATS ids often are) and whose text is NULL if asked. */
function insertCandidate(opts: { scrubbedText: string | null }) {
  return db.query(
    `INSERT INTO candidates (org_id, external_id, name, email, phone, resume, scrubbed_text, content_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'h')`,
    [orgId, PERSON.email, PERSON.name, PERSON.email, PERSON.phone, PERSON.resume, opts.scrubbedText],
  );
}

test('a 500 on a database error logs its SQLSTATE, constraint, table and column, never the failing row or the key', async () => {
  const { logger, lines, parsed } = captured();
  const app = Fastify({ logger: false, childLoggerFactory: requestLoggerFactory(logger as FastifyBaseLogger) });
  registerErrorHandling(app);
  app.post('/not-null', async () => insertCandidate({ scrubbedText: null }));
  app.post('/unique', async () => {
    await insertCandidate({ scrubbedText: 'x' }).catch(() => undefined);
    return insertCandidate({ scrubbedText: 'x' });
  });
  try {
    for (const url of ['/not-null', '/unique']) {
      const res = await app.inject({ method: 'POST', url });
      assert.equal(res.statusCode, 500, res.body);
      assertNoPii(res.body, `the ${url} answer`);
    }
  } finally {
    await app.close();
  }
  // The errors really did carry the person: pg puts the failing row and the key in `detail`.
  const raw = await insertCandidate({ scrubbedText: null }).then(() => null, (err: unknown) => err as { detail?: string });
  assert.match(String(raw?.detail), /Failing row contains .*jane\.roe@example\.com/);

  const errors = parsed().filter((l) => l.msg === 'unhandled error');
  assert.equal(errors.length, 2, lines.join('\n'));
  assertNoPii(lines.join('\n'), 'the log');
  const [notNull, unique] = errors.map((l) => l.err as Record<string, unknown>);
  assert.equal(notNull!.code, '23502');
  assert.equal(notNull!.table, 'candidates');
  assert.equal(notNull!.column, 'scrubbed_text');
  assert.equal(notNull!.name, 'DatabaseError');
  assert.match(String(notNull!.message), /null value in column "scrubbed_text" of relation "candidates" violates not-null constraint/);
  assert.equal(unique!.code, '23505');
  assert.equal(unique!.constraint, 'candidates_org_id_external_id_key');
  for (const err of [notNull!, unique!]) {
    for (const dropped of ['detail', 'where', 'internalQuery', 'hint', 'parameters']) assert.equal(err[dropped], undefined, dropped);
  }
  for (const l of errors) assert.ok(typeof l.reqId === 'string' && l.reqId.length > 0, 'the line carries the request id');
});

test('a database message that quotes the value it could not read keeps its words and loses the value, in logs and on a terminal', async () => {
  const err = await db.query('SELECT $1::uuid', [PERSON.email]).then(() => new Error('no error'), (e: unknown) => e as Error);
  assert.ok(err.message.includes(PERSON.email), 'PostgreSQL quotes the value');
  const { logger, lines, parsed } = captured();
  logger.error({ err }, 'query failed');
  assertNoPii(lines.join('\n'), 'the log');
  const logged = parsed()[0]!.err as Record<string, unknown>;
  assert.equal(logged.code, '22P02');
  assert.equal(logged.message, 'invalid input syntax for type uuid: "…"');
  assert.match(String(logged.stack), /^DatabaseError: invalid input syntax for type uuid: "…"\n\s+at /);
  // What the CLI and a failed boot print for an error that is not theirs.
  const printed = errorText(err, { stack: true });
  assertNoPii(printed, 'the printed error');
  assert.match(printed, /^DatabaseError: invalid input syntax for type uuid/);
});

/** A model server's 400 whose body echoes the request, quoted as validation errors do, with what the scrubber missed. */
function echoing(req: RecordedRequest) {
  const echoed = `${PERSON.name} <${PERSON.email}> ${PERSON.phone}: ${PERSON.resume}. ${userText(req).slice(0, 300)}`;
  return fakeReply.error(400, `Invalid 'input': could not process ${JSON.stringify(echoed)}; contact ${PERSON.email}`, 'invalid_prompt');
}

test('a model server error that echoes the request: the API logs its status, code and request id, not the body', async () => {
  const server = await startFakeLlmServer();
  server.setHandler((req) => (req.path.includes('embeddings') ? echoing(req) : undefined));
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api', EMBEDDINGS: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test-error-logs', LLM_MAX_RETRIES: '0' });
  try {
    const res = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: { ...rt.auth(), 'x-request-id': 'req-error-logs-1' }, payload: { candidates: [candidate('jr', { name: PERSON.name, email: PERSON.email })] } });
    assert.equal(res.statusCode, 502, res.body);
    assertNoPii(res.body, 'the answer');
    const failed = rt.logs.find((l) => l.msg === 'model call failed');
    assert.ok(failed, rt.logText());
    assertNoPii(rt.logText(), 'the log');
    assert.equal(failed.reqId, 'req-error-logs-1');
    const err = failed.err as Record<string, unknown>;
    assert.equal(err.code, 'model_call_failed');
    assert.equal(err.status, 400);
    const cause = err.cause as Record<string, unknown>;
    assert.equal(cause.status, 400);
    assert.equal(cause.code, 'invalid_prompt');
    assert.equal(cause.error, undefined, 'the parsed body is not logged');
    assert.equal(cause.headers, undefined);
    assert.match(String(cause.message), /^400 Invalid '…': could not process "…"; contact \[EMAIL\]$/);
    // The ledger row of the failed attempt holds the same words (written by the journal, within ~150 ms).
    await rt.services.journal.flush();
    const rows = await rt.db.query<{ error: string | null }>("SELECT error FROM model_calls WHERE outcome <> 'ok'");
    assert.ok(rows.rows.length > 0);
    assertNoPii(JSON.stringify(rows.rows), 'the ledger');
  } finally {
    await rt.close();
    await server.close();
  }
});

test('a run that fails on a model server error that echoes the prompt: the worker logs its status and code, not the body', async () => {
  const server = await startFakeLlmServer();
  server.setHandler(scriptedModel({ override: (req) => (req.agent === 'scorer' ? echoing(req) : undefined) }));
  const rt = await startTestRuntime({ MATCH_ENGINE: 'llm', LLM_BASE_URL: server.url, LLM_API_KEY: 'sk-test-error-logs', LLM_MODEL: 'fake-chat', LLM_MAX_RETRIES: '0', RUN_MAX_ATTEMPTS: '1' });
  try {
    const pool = [...backendPool().slice(0, 3), candidate('jr', { name: PERSON.name, email: PERSON.email, phone: PERSON.phone, skills: ['Go'], resume: `${PERSON.name}\n${PERSON.email}\n${PERSON.resume} in Go.` })];
    assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: pool } })).statusCode, 200);
    const run = await startRunUntil(rt, { role: GO_ROLE, maxIterations: 1, scoreLimit: 2 }, 'failed');
    const id = run.id as string;
    assertNoPii(JSON.stringify(run.error), 'the run\'s error');
    const failed = rt.logs.find((l) => l.msg === 'run failed' && l.runId === id);
    assert.ok(failed, rt.logText());
    assertNoPii(rt.logText(), 'the log');
    const err = failed.err as Record<string, unknown>;
    assert.equal(err.code, 'model_call_failed');
    assert.equal(err.agent, 'scorer');
    assert.equal(err.status, 400);
    assert.match(String(err.message), /status 400/);
  } finally {
    await rt.close();
    await server.close();
  }
});
