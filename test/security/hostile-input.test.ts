// Hostile input (OWASP API3/API4/API8, mass assignment): every bad request is a quick 4xx problem that writes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
let runId: string;
let roleId: string;
before(async () => {
  // Generous rate limits: this file sends many writes on purpose, and a 429 must not hide the answer under test.
  rt = await startTestRuntime({ PROCESS_ROLE: 'api', RATE_LIMIT_WRITES_PER_MINUTE: '100000', RATE_LIMIT_RUNS_PER_MINUTE: '100000' });
  const run = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: ROLE } });
  assert.equal(run.statusCode, 202);
  runId = run.json().id;
  roleId = run.json().roleId;
});
after(() => rt.close());

const ROLE = { title: 'Backend engineer', description: 'Go services on Kubernetes' };
const CANDIDATE = { externalId: 'h-1', resume: 'Go engineer, 6 years.' };
const NUL = 'a\u0000b';
const TABLES = ['organisations', 'api_keys', 'candidates', 'candidate_embeddings', 'roles', 'matching_runs', 'run_events', 'shortlist_entries', 'model_calls', 'run_trace'];
const cursorOf = (t: string, i = '00000000-0000-4000-8000-000000000000') => Buffer.from(JSON.stringify({ t, i })).toString('base64url');
const many = (n: number, item: unknown) => Array.from({ length: n }, () => item);

interface Case {
  name: string;
  method?: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** An object is sent as JSON; a string is sent byte for byte. */
  body?: unknown;
  headers?: Record<string, string>;
  status?: number;
  /** An entry of `errors` must carry exactly this path. */
  path?: string;
  /** What the problem's detail must say. */
  detail?: RegExp;
}

const roleWith = (patch: Record<string, unknown>) => ({ ...ROLE, ...patch });
const candidatesWith = (patch: Record<string, unknown>) => ({ candidates: [{ ...CANDIDATE, ...patch }] });

// Every text field a client can send, with the path the answer must name.
const TEXT_FIELDS: Array<{ url: string; path: string; body: (v: string) => unknown }> = [
  ...['title', 'description', 'location'].map((f) => ({ url: '/v1/roles', path: `body.${f}`, body: (v: string) => roleWith({ [f]: v }) })),
  ...['mustHaveSkills', 'niceToHaveSkills'].map((f) => ({ url: '/v1/roles', path: `body.${f}.0`, body: (v: string) => roleWith({ [f]: [v] }) })),
  ...['title', 'description', 'location'].map((f) => ({ url: '/v1/matching-runs', path: `body.role.${f}`, body: (v: string) => ({ role: roleWith({ [f]: v }) }) })),
  ...['externalId', 'name', 'email', 'phone', 'headline', 'location', 'resume'].map((f) => ({
    url: '/v1/candidates',
    path: `body.candidates.0.${f}`,
    body: (v: string) => candidatesWith({ [f]: f === 'email' || f === 'phone' ? `${v}xyz` : v }),
  })),
  { url: '/v1/candidates', path: 'body.candidates.0.skills.0', body: (v: string) => candidatesWith({ skills: [v] }) },
];

const CASES: Case[] = [
  // Framing: what the JSON parser and the content-type negotiation refuse.
  { name: 'malformed JSON', method: 'POST', url: '/v1/roles', body: '{"title": "x", ', status: 400, detail: /not valid JSON/ },
  { name: 'single-quoted JSON', method: 'POST', url: '/v1/roles', body: "{'title': 'x'}", status: 400 },
  { name: 'empty JSON body', method: 'POST', url: '/v1/roles', body: '', status: 400 },
  { name: 'JSON null', method: 'POST', url: '/v1/roles', body: 'null', status: 400 },
  { name: 'JSON null as a stored role’s run parameters (no body is fine, null is not)', method: 'POST', url: '/v1/roles/{role}/matching-runs', body: 'null', status: 400, path: 'body' },
  { name: 'a JSON array as a stored role’s run parameters', method: 'POST', url: '/v1/roles/{role}/matching-runs', body: '[]', status: 400, path: 'body' },
  // A 415 says what to send instead, and what was sent.
  { name: 'text/plain', method: 'POST', url: '/v1/roles', body: 'title=x', headers: { 'content-type': 'text/plain' }, status: 415, detail: /^The body must be JSON, sent with Content-Type: application\/json \(this request's was "text\/plain"\)\.$/ },
  { name: 'XML', method: 'POST', url: '/v1/candidates', body: '<candidates/>', headers: { 'content-type': 'application/xml' }, status: 415, detail: /Content-Type: application\/json \(this request's was "application\/xml"\)/ },
  { name: 'form-encoded', method: 'POST', url: '/v1/matching-runs', body: 'roleId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415, detail: /Content-Type: application\/json/ },
  { name: 'a body without a content type', method: 'POST', url: '/v1/roles', body: '{"title":"x"}', headers: { 'content-type': '' }, status: 415, detail: /Content-Type: application\/json \(this request's had none\)/ },
  // JSON is UTF-8: Latin-1 bytes were stored with U+FFFD in their place, and another charset was read as UTF-8.
  {
    name: 'a body that is not UTF-8',
    method: 'POST',
    url: '/v1/candidates',
    body: Buffer.from('{"candidates":[{"externalId":"u-1","name":"Jos\xe9 M\xfcller","resume":"Go engineer"}]}', 'latin1'),
    status: 400,
    detail: /not valid UTF-8/,
  },
  { name: 'a charset other than UTF-8', method: 'POST', url: '/v1/roles', body: '{"title":"x","description":"y"}', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, status: 415, detail: /"iso-8859-1"/ },
  { name: 'a role over 1 MiB', method: 'POST', url: '/v1/roles', body: JSON.stringify(roleWith({ description: 'x'.repeat(1_100_000) })), status: 413, detail: /larger than this route accepts \(1 MiB/ },
  { name: 'a run over 1 MiB', method: 'POST', url: '/v1/matching-runs', body: JSON.stringify({ role: roleWith({ description: 'x'.repeat(1_100_000) }) }), status: 413 },
  { name: 'candidates over 64 MiB', method: 'POST', url: '/v1/candidates', body: `{"candidates":[{"externalId":"b","resume":"${'x'.repeat(65 * 1024 * 1024)}"}]}`, status: 413, detail: /\(64 MiB of JSON\)\. Send the candidates in smaller batches/ },
  { name: 'arrays nested 100,000 deep', method: 'POST', url: '/v1/roles', body: '['.repeat(100_000) + ']'.repeat(100_000), status: 400 },
  { name: 'objects nested 50,000 deep in a field', method: 'POST', url: '/v1/roles', body: `{"title":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)},"description":"x"}`, status: 400, path: 'body.title' },
  // Valid JSON, refused for a key that could pollute prototypes: the answer says which, not that the JSON is malformed.
  { name: '__proto__ key', method: 'POST', url: '/v1/roles', body: '{"title":"x","description":"y","__proto__":{"isAdmin":true}}', status: 400, detail: /"__proto__"/ },
  { name: '__proto__ inside a candidate', method: 'POST', url: '/v1/candidates', body: '{"candidates":[{"externalId":"p","resume":"r","__proto__":{"isAdmin":true}}]}', status: 400, detail: /"__proto__"/ },
  { name: 'constructor.prototype key', method: 'POST', url: '/v1/roles', body: '{"title":"x","description":"y","constructor":{"prototype":{"isAdmin":true}}}', status: 400, detail: /"constructor"/ },
  // Sizes: arrays and strings over their caps.
  { name: '20,000 candidates', method: 'POST', url: '/v1/candidates', body: { candidates: many(20_000, CANDIDATE) }, status: 400, path: 'body.candidates' },
  { name: '20,000 skills', method: 'POST', url: '/v1/roles', body: roleWith({ mustHaveSkills: many(20_000, 'Go') }), status: 400, path: 'body.mustHaveSkills' },
  { name: '20,000 invalid skills (bounded error list)', method: 'POST', url: '/v1/candidates', body: candidatesWith({ skills: many(20_000, 7) }), status: 400 },
  { name: 'title of 301 chars', method: 'POST', url: '/v1/roles', body: roleWith({ title: 't'.repeat(301) }), status: 400, path: 'body.title' },
  { name: 'description of 50,001 chars', method: 'POST', url: '/v1/roles', body: roleWith({ description: 'd'.repeat(50_001) }), status: 400, path: 'body.description' },
  { name: 'resume of 100,001 chars', method: 'POST', url: '/v1/candidates', body: candidatesWith({ resume: 'r'.repeat(100_001) }), status: 400, path: 'body.candidates.0.resume' },
  { name: 'externalId of 201 chars', method: 'POST', url: '/v1/candidates', body: candidatesWith({ externalId: 'e'.repeat(201) }), status: 400, path: 'body.candidates.0.externalId' },
  { name: 'Idempotency-Key of 201 chars', method: 'POST', url: '/v1/matching-runs', body: { role: ROLE }, headers: { 'idempotency-key': 'k'.repeat(201) }, status: 400, path: 'headers.idempotency-key' },
  { name: 'cursor of 201 chars', url: `/v1/roles?cursor=${'c'.repeat(201)}`, status: 400, path: 'querystring.cursor' },
  // Text PostgreSQL cannot store: NUL in every text field and header, and lone surrogates.
  ...TEXT_FIELDS.map((f): Case => ({ name: `NUL in ${f.path} (${f.url})`, method: 'POST', url: f.url, body: f.body(NUL), status: 400, path: f.path })),
  { name: 'NUL in Idempotency-Key', method: 'POST', url: '/v1/matching-runs', body: { role: ROLE }, headers: { 'idempotency-key': NUL }, status: 400, path: 'headers.idempotency-key' },
  { name: 'NUL in Idempotency-Key (stored role)', method: 'POST', url: `/v1/roles/{role}/matching-runs`, body: {}, headers: { 'idempotency-key': NUL }, status: 400, path: 'headers.idempotency-key' },
  { name: 'NUL in a JSON key', method: 'POST', url: '/v1/roles', body: '{"title":"x","description":"y","a\\u0000":1}', status: 400, path: 'body.a\u0000' },
  { name: 'NUL in a cursor', url: '/v1/candidates?cursor=%00', status: 400, path: 'querystring.cursor' },
  { name: 'NUL in an id', url: '/v1/roles/%00', status: 400, path: 'params.id' },
  { name: 'lone surrogate in a resume', method: 'POST', url: '/v1/candidates', body: '{"candidates":[{"externalId":"s","resume":"x \\ud800 y"}]}', status: 400, path: 'body.candidates.0.resume' },
  { name: 'lone surrogate in a role title', method: 'POST', url: '/v1/roles', body: '{"title":"\\udfff","description":"y"}', status: 400, path: 'body.title' },
  // Ids.
  { name: 'non-UUID candidate id', url: '/v1/candidates/not-a-uuid', status: 400, path: 'params.id' },
  { name: 'an id of 101 characters (past the router’s limit)', url: `/v1/roles/${'a'.repeat(101)}`, status: 400, path: 'params.id' },
  { name: 'an id of 101 characters on cancel', method: 'POST', url: `/v1/matching-runs/${'a'.repeat(101)}/cancel`, status: 400, path: 'params.id' },
  { name: 'a truncated percent-escape in an id', url: '/v1/candidates/%E0%A4%A', status: 400 },
  { name: 'a lone surrogate percent-encoded in an id', method: 'DELETE', url: '/v1/candidates/%ED%A0%80', status: 400 },
  { name: 'SQL in a run id', url: `/v1/matching-runs/${encodeURIComponent("1' OR '1'='1")}`, status: 400, path: 'params.id' },
  { name: 'non-UUID id on delete', method: 'DELETE', url: '/v1/candidates/123', status: 400, path: 'params.id' },
  { name: 'non-UUID id on cancel', method: 'POST', url: '/v1/matching-runs/0000/cancel', status: 400, path: 'params.id' },
  { name: 'non-UUID roleId in a body', method: 'POST', url: '/v1/matching-runs', body: { roleId: 'role-1' }, status: 400, path: 'body.roleId' },
  // Numbers.
  { name: 'yearsExperience 1e309', method: 'POST', url: '/v1/candidates', body: '{"candidates":[{"externalId":"n","resume":"r","yearsExperience":1e309}]}', status: 400, path: 'body.candidates.0.yearsExperience' },
  { name: 'yearsExperience -1', method: 'POST', url: '/v1/candidates', body: candidatesWith({ yearsExperience: -1 }), status: 400, path: 'body.candidates.0.yearsExperience' },
  { name: 'yearsExperience underflowing a real', method: 'POST', url: '/v1/candidates', body: '{"candidates":[{"externalId":"n","resume":"r","yearsExperience":1e-320}]}', status: 400, path: 'body.candidates.0.yearsExperience' },
  { name: 'minYearsExperience 1.5', method: 'POST', url: '/v1/roles', body: roleWith({ minYearsExperience: 1.5 }), status: 400, path: 'body.minYearsExperience' },
  { name: 'maxIterations 1e309', method: 'POST', url: '/v1/matching-runs', body: '{"role":{"title":"x","description":"y"},"maxIterations":1e309}', status: 400, path: 'body.maxIterations' },
  { name: 'maxIterations 1.5', method: 'POST', url: '/v1/matching-runs', body: { role: ROLE, maxIterations: 1.5 }, status: 400, path: 'body.maxIterations' },
  { name: 'scoreLimit -1', method: 'POST', url: '/v1/matching-runs', body: { role: ROLE, scoreLimit: -1 }, status: 400, path: 'body.scoreLimit' },
  { name: 'budget.maxCostUsd 1e309', method: 'POST', url: '/v1/matching-runs', body: '{"role":{"title":"x","description":"y"},"budget":{"maxTokens":1000,"maxCostUsd":1e309}}', status: 400, path: 'body.budget.maxCostUsd' },
  { name: 'limit=1e309', url: '/v1/candidates?limit=1e309', status: 400, path: 'querystring.limit' },
  { name: 'limit=-1', url: '/v1/roles?limit=-1', status: 400, path: 'querystring.limit' },
  { name: 'limit=1.5', url: '/v1/matching-runs?limit=1.5', status: 400, path: 'querystring.limit' },
  { name: 'limit=abc', url: '/v1/matching-runs?limit=abc', status: 400, path: 'querystring.limit' },
  { name: 'events after=1e309', url: `/v1/matching-runs/{run}/events?after=1e309`, status: 400, path: 'querystring.after' },
  { name: 'events after=-1', url: `/v1/matching-runs/{run}/events?after=-1`, status: 400, path: 'querystring.after' },
  // Cursors: not ours, forged, or holding values PostgreSQL refuses.
  { name: 'garbage cursor', url: '/v1/candidates?cursor=not-a-cursor', status: 400, path: 'querystring.cursor' },
  { name: 'forged cursor with a bad id', url: `/v1/roles?cursor=${cursorOf('2024-01-01T00:00:00Z', 'x')}`, status: 400, path: 'querystring.cursor' },
  { name: 'forged cursor in year 0000', url: `/v1/roles?cursor=${cursorOf('0000-01-01T00:00:00Z')}`, status: 400, path: 'querystring.cursor' },
  { name: 'events cursor abc', url: `/v1/matching-runs/{run}/events?cursor=abc`, status: 400, path: 'querystring.cursor' },
  { name: 'events cursor past int32', url: `/v1/matching-runs/{run}/events?cursor=99999999999`, status: 400, path: 'querystring.cursor' },
  { name: 'events cursor of 10 digits past int32', url: `/v1/matching-runs/{run}/events?cursor=2147483648`, status: 400, path: 'querystring.cursor' },
  { name: 'unknown run status filter', url: '/v1/matching-runs?status=done', status: 400, path: 'querystring.status' },
  // Unknown query parameters: a misspelt filter must not quietly answer the unfiltered list.
  { name: 'a misspelt status filter', url: '/v1/matching-runs?stauts=failed', status: 400, path: 'querystring.stauts' },
  { name: 'an array-style limit', url: '/v1/candidates?limit[]=5', status: 400, path: 'querystring.limit[]' },
  { name: 'a misspelt events after', url: `/v1/matching-runs/{run}/events?afterSeq=3`, status: 400, path: 'querystring.afterSeq' },
  { name: 'a misspelt usage groupBy', url: '/v1/usage?group_by=agent', status: 400, path: 'querystring.group_by' },
  { name: 'an unknown roles parameter', url: '/v1/roles?orgId=other', status: 400, path: 'querystring.orgId' },
  // Dates in /v1/usage.
  { name: 'usage from=yesterday', url: '/v1/usage?from=yesterday', status: 400, path: 'querystring.from' },
  { name: 'usage month 13', url: '/v1/usage?from=2024-13-45T00:00:00Z', status: 400, path: 'querystring.from' },
  { name: 'usage February 30', url: '/v1/usage?to=2024-02-30T00:00:00Z', status: 400, path: 'querystring.to' },
  { name: 'usage year 275760', url: '/v1/usage?from=275760-09-13T00:00:00Z', status: 400, path: 'querystring.from' },
  { name: 'usage from after to', url: '/v1/usage?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z', status: 400, path: 'querystring.from' },
  { name: 'usage window over 366 days', url: '/v1/usage?from=2020-01-01T00:00:00Z&to=2024-01-01T00:00:00Z', status: 400, path: 'querystring.from' },
  { name: 'usage groupBy=week', url: '/v1/usage?groupBy=week', status: 400, path: 'querystring.groupBy' },
];

async function rowCounts(): Promise<Record<string, number>> {
  const r = await rt.db.query<Record<string, number>>(`SELECT ${TABLES.map((t) => `(SELECT count(*)::int FROM ${t}) AS ${t}`).join(', ')}`);
  return r.rows[0]!;
}

test('hostile JSON and parameters: each answers a quick 4xx problem document, writes nothing, and the process stays up', async () => {
  for (const c of CASES) {
    const before = await rowCounts();
    const url = c.url.replace('{run}', runId).replace('{role}', roleId);
    // CPU time, not wall time: a loaded machine descheduling the test is no slow answer (a 64 MiB body took 3.3 s of
    // wall time with the CPUs busy elsewhere). What this bounds is the work a hostile body makes the process do.
    const started = process.cpuUsage();
    const res = await rt.app!.inject({
      method: c.method ?? 'GET',
      url,
      headers: { ...rt.auth(), ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers },
      ...(c.body !== undefined ? { payload: typeof c.body === 'string' || Buffer.isBuffer(c.body) ? c.body : JSON.stringify(c.body) } : {}),
    });
    const cpu = process.cpuUsage(started);
    const ms = (cpu.user + cpu.system) / 1000;
    const what = `${c.name}: ${res.statusCode} ${res.body.slice(0, 300)}`;
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, what);
    if (c.status) assert.equal(res.statusCode, c.status, what);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/, what);
    const body = res.json();
    for (const field of ['type', 'title', 'detail'] as const) assert.equal(typeof body[field], 'string', `${what}: ${field}`);
    assert.equal(body.status, res.statusCode, what);
    if (c.detail) assert.match(body.detail, c.detail, what);
    if (c.path) assert.ok(body.errors?.some((e: { path: string }) => e.path === c.path), `${what}: expected an error at ${c.path}`);
    assert.ok((body.errors?.length ?? 0) <= 50, `${c.name}: the error list is bounded`);
    assert.ok(ms < 3000, `${c.name}: answered in ${Math.round(ms)} ms of CPU`);
    assert.deepEqual(await rowCounts(), before, `${c.name}: nothing was written`);
  }
  assert.equal(({} as Record<string, unknown>).isAdmin, undefined, 'no prototype was polluted');
  assert.equal((await rt.app!.inject({ url: '/healthz' })).statusCode, 200);
  assert.equal((await rt.app!.inject({ url: '/readyz' })).statusCode, 200);
  const fine = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: ROLE });
  assert.equal(fine.statusCode, 201, 'a valid request still works afterwards');
  // UTF-8 said so, and a byte order mark before the JSON, are fine.
  const said = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: { ...rt.auth(), 'content-type': 'application/json; charset=UTF-8' }, payload: `\uFEFF${JSON.stringify(ROLE)}` });
  assert.equal(said.statusCode, 201, said.body);
  assert.equal(rt.logs.filter((l) => l.msg === 'unhandled error').length, 0, 'no hostile input reached the 500 path');
});

test('a query parameter given twice is refused with words that say so, whatever its type', async () => {
  for (const url of ['/v1/candidates?limit=5&limit=10', '/v1/matching-runs?status=failed&status=queued', `/v1/matching-runs/${runId}/events?after=1&after=2`]) {
    const res = await rt.app!.inject({ method: 'GET', url, headers: rt.auth() });
    assert.equal(res.statusCode, 400, url);
    const errors = (res.json() as { errors: Array<{ path: string; message: string }> }).errors;
    assert.match(errors[0]!.message, /^is given 2 times; give it once$/, `${url}: ${res.body}`);
  }
});

test('mass assignment: fields the server owns (orgId, id, status, shortlist…) are refused with their paths, never stored', async () => {
  const attempts: Array<{ url: string; body: Record<string, unknown>; paths: string[] }> = [
    { url: '/v1/roles', body: { ...ROLE, orgId: 'x', id: '00000000-0000-4000-8000-000000000001', createdAt: '2000-01-01T00:00:00Z' }, paths: ['body.orgId', 'body.id', 'body.createdAt'] },
    {
      url: '/v1/matching-runs',
      body: { role: ROLE, status: 'succeeded', shortlist: [{ candidateId: 'x', totalScore: 100 }], id: 'x', orgId: 'x', engine: 'heuristic', usage: {} },
      paths: ['body.status', 'body.shortlist', 'body.id', 'body.orgId', 'body.engine', 'body.usage'],
    },
    { url: '/v1/matching-runs', body: { role: { ...ROLE, orgId: 'x' } }, paths: ['body.role.orgId'] },
    { url: `/v1/roles/${roleId}/matching-runs`, body: { status: 'succeeded', roleId: 'x' }, paths: ['body.status', 'body.roleId'] },
    { url: '/v1/candidates', body: { candidates: [{ ...CANDIDATE, id: 'x', orgId: 'x', embeddingModel: 'm' }] }, paths: ['body.candidates.0.id', 'body.candidates.0.orgId', 'body.candidates.0.embeddingModel'] },
    { url: '/v1/candidates', body: { candidates: [CANDIDATE], orgId: 'x' }, paths: ['body.orgId'] },
  ];
  const before = await rowCounts();
  for (const a of attempts) {
    const res = await rt.app!.inject({ method: 'POST', url: a.url, headers: rt.auth(), payload: a.body });
    assert.equal(res.statusCode, 400, `${a.url}: ${res.body}`);
    const paths = res.json().errors.map((e: { path: string }) => e.path);
    for (const p of a.paths) assert.ok(paths.includes(p), `${a.url}: ${p} is named (got ${JSON.stringify(paths)})`);
  }
  assert.deepEqual(await rowCounts(), before, 'nothing was written');
});
