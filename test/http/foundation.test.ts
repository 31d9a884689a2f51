import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
});
after(() => rt.close());

const PROBLEM = 'application/problem+json';

test('healthz and readyz answer without a key', async () => {
  assert.equal((await rt.app!.inject({ url: '/healthz' })).statusCode, 200);
  const ready = await rt.app!.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ready' });
});

test('readyz answers a 503 problem while a migration is not applied, and 200 again once it is', async () => {
  const last = (await rt.db.query('SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1')).rows[0]!;
  await rt.db.query('DELETE FROM schema_migrations WHERE version = $1', [last.version]);
  try {
    const res = await rt.app!.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    assert.equal(res.json().status, 503);
    assert.equal((await rt.app!.inject({ url: '/healthz' })).statusCode, 200, 'the process is still up');
  } finally {
    await rt.db.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [last.version, last.name, last.checksum, last.applied_at]);
  }
  assert.equal((await rt.app!.inject({ url: '/readyz' })).statusCode, 200);
});

test('/v1 routes refuse a missing, malformed, unknown or revoked key with a 401 problem', async () => {
  const attempts = [
    {},
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer ' },
    { authorization: 'Bearer tm_0000000000_unknown-key-unknown-key' },
  ];
  for (const headers of attempts) {
    const res = await rt.app!.inject({ url: '/v1/candidates', headers });
    assert.equal(res.statusCode, 401, JSON.stringify(headers));
    assert.match(res.headers['content-type'] as string, /application\/problem\+json/);
    assert.equal(res.json().status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  }
  const created = await rt.services.apiKeys.create('acme');
  assert.equal((await rt.app!.inject({ url: '/v1/candidates', headers: rt.auth(created.key) })).statusCode, 200);
  assert.equal(await rt.services.apiKeys.revoke(created.prefix), true);
  const revoked = await rt.app!.inject({ url: '/v1/candidates', headers: rt.auth(created.key) });
  assert.equal(revoked.statusCode, 401, 'revocation takes effect on the next request');
});

test('an unknown route is a 404 problem document', async () => {
  const res = await rt.app!.inject({ url: '/v1/nothing-here', headers: rt.auth() });
  assert.equal(res.statusCode, 404);
  assert.match(res.headers['content-type'] as string, new RegExp(PROBLEM.replace('+', '\\+')));
  const body = res.json();
  assert.equal(body.status, 404);
  assert.equal(body.title, 'Not found');
  assert.ok(body.type && body.detail);
});

test('validation errors list the failing paths', async () => {
  const res = await rt.app!.inject({
    method: 'POST',
    url: '/v1/roles',
    headers: rt.auth(),
    payload: { title: '', description: 'x', seniority: 'wizard', orgId: 'someone-else' },
  });
  assert.equal(res.statusCode, 400);
  const body = res.json();
  assert.equal(body.status, 400);
  const paths = body.errors.map((e: { path: string }) => e.path);
  assert.ok(paths.some((p: string) => p.includes('title')), JSON.stringify(paths));
  assert.ok(paths.some((p: string) => p.includes('seniority')), JSON.stringify(paths));
  assert.ok(body.errors.every((e: { message: string }) => typeof e.message === 'string' && e.message.length > 0));
  assert.equal((await rt.db.query('SELECT count(*)::int AS n FROM roles')).rows[0]!.n, 0, 'nothing written');
});

test('the OpenAPI document lists every path of the contract', async () => {
  const res = await rt.app!.inject({ url: '/docs/json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.match(doc.openapi, /^3\./);
  const contract: Array<[string, string]> = [
    ['post', '/v1/candidates'],
    ['get', '/v1/candidates'],
    ['get', '/v1/candidates/{id}'],
    ['delete', '/v1/candidates/{id}'],
    ['post', '/v1/roles'],
    ['get', '/v1/roles'],
    ['get', '/v1/roles/{id}'],
    ['post', '/v1/matching-runs'],
    ['post', '/v1/roles/{id}/matching-runs'],
    ['get', '/v1/matching-runs'],
    ['get', '/v1/matching-runs/{id}'],
    ['get', '/v1/matching-runs/{id}/events'],
    ['post', '/v1/matching-runs/{id}/cancel'],
    ['get', '/v1/matching-runs/{id}/trace'],
    ['get', '/v1/usage'],
    ['get', '/healthz'],
    ['get', '/readyz'],
    ['get', '/metrics'],
  ];
  for (const [method, path] of contract) {
    assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
  }
  const run = doc.components.schemas.MatchingRun;
  for (const field of ['id', 'roleId', 'status', 'engine', 'progress', 'stop', 'usage', 'shortlist', 'error']) {
    assert.ok(run.properties[field], `MatchingRun.${field}`);
  }
  // Counts in the query are whole numbers in their bounds, as a generated client should send them.
  const query = (path: string, name: string) => doc.paths[path].get.parameters.find((p: { in: string; name: string }) => p.in === 'query' && p.name === name)?.schema;
  assert.deepEqual(query('/v1/candidates', 'limit'), { default: 20, type: 'integer', minimum: 1, maximum: 100 });
  assert.deepEqual(query('/v1/matching-runs/{id}/events', 'after'), { default: 0, type: 'integer', minimum: 0, maximum: 2_147_483_647 });
  assert.equal((await rt.app!.inject({ url: '/docs' })).statusCode < 400, true);
});

test('the OpenAPI document says what the routes answer: problem documents, headers, which routes need no key', async () => {
  const doc = (await rt.app!.inject({ url: '/docs/json' })).json();
  for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content?: object; headers?: object }> }>>)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) >= 400) assert.deepEqual(Object.keys(response.content ?? {}), ['application/problem+json'], `${method} ${path} ${status}`);
      }
      // Every route with a body refuses one over its limit (413) or not JSON (415), not only the candidate upsert; and so
      // does a POST or DELETE that takes none, when one is sent anyway.
      if ((op as { requestBody?: object }).requestBody || method === 'post' || method === 'delete') {
        assert.ok(op.responses['413'] && op.responses['415'], `${method} ${path}: 413 and 415`);
      }
      const needsKey = path.startsWith('/v1/');
      assert.equal(op.security === undefined || op.security.length > 0, needsKey, `${method} ${path}: security`);
      if (needsKey) assert.ok(op.responses['503'] && op.responses['401'], `${method} ${path}: 401 and 503`);
      // Every route, the operations routes too, answers 503 with Retry-After while the process shuts down.
      else if (['/healthz', '/metrics'].includes(path)) assert.ok((op.responses['503']?.headers as Record<string, unknown> | undefined)?.['Retry-After'], `${method} ${path}: 503 with Retry-After`);
      // Only what the route can answer: a 404 where an id (in the path, or roleId in a run's body) may name nothing,
      // a 429 where a per-key limit or cap applies (writes and run starts; cancelling is neither).
      if (needsKey) {
        const namesById = path.includes('{id}') || `${method} ${path}` === 'post /v1/matching-runs';
        const limited = ['post', 'delete'].includes(method) && !path.endsWith('/cancel');
        assert.equal(Boolean(op.responses['404']), namesById, `${method} ${path}: 404`);
        assert.equal(Boolean(op.responses['429']), limited, `${method} ${path}: 429`);
        // Where a per-key limit applies, every answer after authentication carries the key's standing.
        for (const [status, response] of Object.entries(op.responses)) {
          const headers = Object.keys(response.headers ?? {});
          const expected = limited && status !== '401' && status !== '503' && !(status === '422' && path.endsWith('matching-runs'));
          assert.equal(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'].every((h) => headers.includes(h)), expected, `${method} ${path} ${status}: rate-limit headers`);
        }
      }
    }
  }
  const poll = doc.paths['/v1/matching-runs/{id}'].get;
  assert.deepEqual(Object.keys(poll.responses['200'].headers).sort(), ['ETag', 'Retry-After']);
  assert.ok(poll.responses['304'].headers.ETag);
  assert.ok(poll.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'if-none-match'));
  for (const path of ['/v1/matching-runs', '/v1/roles/{id}/matching-runs']) {
    assert.deepEqual(Object.keys(doc.paths[path].post.responses['202'].headers).sort(), ['ETag', 'Location', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
  }
  assert.equal(doc.paths['/v1/roles/{id}/matching-runs'].post.requestBody.required, false);
  assert.equal(doc.paths['/v1/matching-runs'].post.requestBody.required, true);
  // A rule JSON Schema does not carry here is said in words: a client reads it before its first 400.
  assert.match(doc.paths['/v1/matching-runs'].post.requestBody.content['application/json'].schema.description, /exactly one of/);
  assert.ok(doc.paths['/v1/roles'].post.responses['201'].headers.Location);
  assert.deepEqual(Object.keys(doc.paths['/metrics'].get.responses['200'].content), ['text/plain; version=0.0.4']);
  // Served twice, the same document (no header or parameter added twice).
  assert.deepEqual((await rt.app!.inject({ url: '/docs/json' })).json(), doc);
});

test('the OpenAPI document defines only the schemas its paths use (no "RoleInput" that is the role as answered)', async () => {
  const doc = (await rt.app!.inject({ url: '/docs/json' })).json();
  const text = JSON.stringify(doc.paths);
  const defined = Object.keys(doc.components.schemas);
  const referenced = (name: string) => text.includes(`"#/components/schemas/${name}"`) || JSON.stringify(doc.components.schemas).includes(`"#/components/schemas/${name}"`);
  assert.deepEqual(defined.filter((name) => !referenced(name)), [], 'schemas no path refers to');
  for (const name of ['Problem', 'Candidate', 'CandidateSummary', 'Role', 'MatchingRun', 'MatchingRunSummary', 'ShortlistEntry', 'RunEvent', 'RunTrace', 'UsageReport']) {
    assert.ok(defined.includes(name), name);
  }
});

test('metrics are Prometheus text', async () => {
  const res = await rt.app!.inject({ url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, /text\/plain/);
  assert.match(res.body, /# TYPE process_cpu_user_seconds_total counter/);
  assert.match(res.body, /db_pool_connections\{state="in_use"\}/);
});

test('while shutting down new requests get 503', async () => {
  rt.services.lifecycle.closing = true;
  try {
    const res = await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().status, 503);
    for (const url of ['/healthz', '/metrics']) {
      const op = await rt.app!.inject({ url });
      assert.deepEqual([op.statusCode, Boolean(op.headers['retry-after'])], [503, true], url);
    }
  } finally {
    rt.services.lifecycle.closing = false;
  }
});

test('a short BOOTSTRAP_API_KEY is registered, with a warning that it could be guessed', async () => {
  const short = await startTestRuntime({ PROCESS_ROLE: 'api', BOOTSTRAP_API_KEY: 'test-key' });
  try {
    assert.equal((await short.app!.inject({ url: '/v1/roles', headers: short.auth('test-key') })).statusCode, 200);
    const warning = short.logs.find((l) => l.level === 40 && /BOOTSTRAP_API_KEY is shorter than 20/.test(String(l.msg)));
    assert.ok(warning, 'the boot warns');
    assert.doesNotMatch(short.logText(), /test-key/, 'the key itself is not logged');
  } finally {
    await short.close();
  }
});

test('a path the router refuses (bad percent-encoding, an id over 100 characters) is a problem document with the usual headers', async () => {
  for (const url of ['/v1/roles/%E0%A4%A', `/v1/matching-runs/${'f'.repeat(120)}/events`]) {
    const res = await rt.app!.inject({ url, headers: { ...rt.auth(), 'x-request-id': 'bad-url-1' } });
    assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
    assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    assert.equal(res.json().status, 400);
    assert.equal(res.headers['x-request-id'], 'bad-url-1');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  }
});
