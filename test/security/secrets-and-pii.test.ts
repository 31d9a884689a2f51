// Sensitive data (OWASP LLM02, API2, API8): PII and keys never reach the model or the logs; keys are never shown
// again; revocation is immediate; security headers and the CORS allow-list hold.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { startFakeLlmServer, type FakeLlmServer } from '../support/fake-llm-server.js';
import { backendPool, candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';
import { scriptedModel } from '../support/scripted-model.js';

const PROVIDER_KEY = 'sk-provider-canary-5b1e9d2c7a';
const ALLOWED_ORIGIN = 'https://recruiter.example';
const PEOPLE = [
  { name: 'Zephyrine Quillfeather', email: 'zq.canary7@example.org', phone: '+44 20 7946 0123', location: '221B Baker Street, London NW1 6XE' },
  { name: 'Thaddeus Brightwater', email: 'thad.b.canary@mail.example', phone: '(555) 867-5309', location: 'thad.b.canary@mail.example / (555) 867-5309' },
];
// A role's description may name its contact: the name, email and phone are the role author's PII.
const CONTACT = { name: 'Ottoline Marchbanks', email: 'ottoline.canary@acme.example', phone: '+1 (415) 555-0199' };
const ROLE = { ...GO_ROLE, description: `${GO_ROLE.description}\nQuestions? Hiring manager ${CONTACT.name}, ${CONTACT.email}, ${CONTACT.phone}.` };
// Every piece of a canary a careless prompt or log line could carry.
const CANARIES = [
  ...[...PEOPLE, CONTACT].flatMap((p) => [p.name, ...p.name.split(' '), p.email, p.email.split('@')[0]!, p.phone, p.phone.replace(/\D/g, '').slice(-7)]),
  'Baker Street', 'NW1 6XE', '6XE', '555-0199',
];

let fake: FakeLlmServer;
let rt: TestRuntime;
let runId: string;

before(async () => {
  fake = await startFakeLlmServer();
  fake.setHandler(scriptedModel());
  rt = await startTestRuntime({
    MATCH_ENGINE: 'llm',
    LLM_BASE_URL: fake.url,
    LLM_API_KEY: PROVIDER_KEY,
    LLM_MODEL: 'fake-chat',
    EMBEDDINGS: 'llm',
    LLM_EMBEDDING_MODEL: 'fake-embed',
    CORS_ORIGINS: `${ALLOWED_ORIGIN},https://other.example`,
  });
  const people = PEOPLE.map((p, i) =>
    candidate(`pii-${i}`, {
      ...p,
      headline: 'Senior Go engineer',
      // A client may put anything in a skill, the candidate's email included.
      skills: ['Go', 'Kubernetes', p.email],
      resume: `${p.name}\n${p.email} | ${p.phone}\nSenior Go engineer, 8 years on Kubernetes and gRPC. ${p.name.split(' ')[0]} led the payments team.`,
    }),
  );
  const upsert = await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates: [...people, ...backendPool('pii-pool-')] } });
  assert.equal(upsert.statusCode, 200, upsert.body);
  const res = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: ROLE, maxIterations: 2, targetStrong: 50, scoreLimit: 10 } });
  runId = res.json().id;
  const run = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${runId}`, headers: rt.auth() })).json();
    return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : null;
  }, 30_000, 'the run');
  assert.equal(run.status, 'succeeded', JSON.stringify(run.error));
});
after(async () => {
  await rt.close();
  await fake.close();
});

const leaks = (text: string, secrets: string[]) => secrets.filter((s) => text.includes(s));
/** The secret part of tm_<prefix>_<secret> (itself base64url, so it may hold "_"). */
const secretOf = (key: string) => key.replace(/^tm_[a-z0-9]{10}_/, '');

test('PII canaries (names, emails, phones, addresses; in resumes, locations, skills and the role) never reach the model server, in chat or embedding requests', async () => {
  const chat = fake.chatRequests();
  const embeddings = fake.requests.filter((r) => r.path === '/v1/embeddings');
  assert.ok(chat.some((r) => r.agent === 'scorer') && embeddings.length > 0, 'both kinds of request were made');
  const sent = fake.requests.map((r) => JSON.stringify(r.body)).join('\n');
  assert.match(sent, /led the payments team/, 'the canaries’ resumes themselves were sent');
  assert.match(sent, /Questions\? Hiring manager \[NAME\], \[EMAIL\], \[PHONE\]/, 'the role’s description was sent, scrubbed');
  assert.match(sent, /\[EMAIL\]/, 'the scrubber’s placeholders stand where the details were');
  assert.deepEqual(leaks(sent, CANARIES), []);
  assert.deepEqual(leaks(sent, [PROVIDER_KEY, rt.apiKey, secretOf(rt.apiKey)]), [], 'no key in any prompt (nothing for a prompt leak to reveal)');
  assert.ok(fake.requests.every((r) => r.headers.authorization === `Bearer ${PROVIDER_KEY}`), 'the provider key goes only where it belongs');
});

test('PII, API keys and the provider key never appear in logs, the trace or the events', async () => {
  const { key } = await rt.services.apiKeys.create('log-check');
  // Requests whose bodies and headers carry the secrets, including ones that fail.
  await rt.app!.inject({ url: '/v1/candidates', headers: rt.auth(key) });
  await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(key), payload: { candidates: [{ ...PEOPLE[0], externalId: 'x', resume: PEOPLE[0]!.email, bogus: PEOPLE[1]!.email }] } });
  await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: { ...rt.auth(key), 'content-type': 'application/json' }, payload: `{"title": "${PEOPLE[1]!.name}", ` });
  await rt.app!.inject({ url: '/v1/roles', headers: rt.auth(`${key}-tampered`) });
  const logs = rt.logText();
  assert.match(logs, /incoming request/, 'request logging is on, so the check means something');
  const secrets = [...CANARIES, rt.apiKey, key, secretOf(key), PROVIDER_KEY];
  assert.deepEqual(leaks(logs, secrets), [], 'logs');
  for (const path of ['trace', 'events?limit=100']) {
    const res = await rt.app!.inject({ url: `/v1/matching-runs/${runId}/${path}`, headers: rt.auth() });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(leaks(res.body, CANARIES), [], path);
  }
});

test('API keys: stored only as hashes and never returned by any route; revocation takes effect on the next request', async () => {
  const created = await rt.services.apiKeys.create('key-check');
  const hash = createHash('sha256').update(created.key).digest('hex');
  const stored = await rt.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE prefix = $1', [created.prefix]);
  assert.equal(stored.rows[0]!.key_hash, hash);
  assert.equal(JSON.stringify(stored.rows).includes(created.key), false, 'the key itself is not stored');

  // Every GET route of the document, with real ids, answers without the key, its secret part or its hash.
  const doc = (await rt.app!.inject({ url: '/docs/json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const ids = {
    candidates: (await rt.app!.inject({ url: '/v1/candidates?limit=1', headers: rt.auth(created.key) })).json().items,
    roles: (await rt.app!.inject({ url: '/v1/roles', headers: rt.auth(created.key) })).json().items,
  };
  assert.deepEqual([ids.candidates.length, ids.roles.length], [0, 0], 'a new organisation starts empty');
  const secrets = [created.key, secretOf(created.key), hash];
  const bodies: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!('get' in ops)) continue;
    const url = path.replace('{id}', path.includes('matching-runs') ? runId : '00000000-0000-4000-8000-000000000000');
    for (const auth of [rt.auth(created.key), rt.auth()]) bodies.push((await rt.app!.inject({ url, headers: auth })).body);
  }
  assert.ok(bodies.length >= 16);
  assert.deepEqual(leaks(bodies.join('\n'), secrets), []);
  assert.deepEqual(leaks(JSON.stringify(doc), ['api_keys', 'keyHash', 'key_hash']), [], 'no route or schema exposes key material');

  assert.equal((await rt.app!.inject({ url: '/v1/roles', headers: rt.auth(created.key) })).statusCode, 200);
  assert.equal(await rt.services.apiKeys.revoke(created.prefix), true);
  const revoked = await rt.app!.inject({ url: '/v1/roles', headers: rt.auth(created.key) });
  assert.equal(revoked.statusCode, 401, 'no cache keeps a revoked key alive');
  assert.equal(revoked.body.includes(created.key), false);
});

test('answers carry only documented properties: no tenant, lease, checkpoint or hash fields leak out of the store', async () => {
  const internal = /^(orgId|org_id|checkpoint|lease\w*|attempts|keyHash|key_hash|request_hash|idempotencyKey|contentHash|content_hash|scrubbedText|scrubbed_text)$/;
  const keysOf = (v: unknown, path = ''): string[] =>
    Array.isArray(v) ? v.flatMap((x, i) => keysOf(x, `${path}[${i}]`))
      : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [`${path}.${k}`, ...keysOf(x, `${path}.${k}`)]) : [];
  const candidateId = (await rt.app!.inject({ url: '/v1/candidates?limit=1', headers: rt.auth() })).json().items[0].id;
  for (const url of ['/v1/candidates', `/v1/candidates/${candidateId}`, '/v1/roles', '/v1/matching-runs', `/v1/matching-runs/${runId}`, `/v1/matching-runs/${runId}/events?limit=100`, `/v1/matching-runs/${runId}/trace`, '/v1/usage']) {
    const res = await rt.app!.inject({ url, headers: rt.auth() });
    assert.equal(res.statusCode, 200, url);
    const found = keysOf(res.json()).filter((k) => internal.test(k.split('.').pop()!));
    assert.deepEqual(found, [], url);
  }
});

test('security headers from helmet on answers, errors and docs; no framework banner', async () => {
  const answers = [
    await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() }),
    await rt.app!.inject({ url: '/v1/roles/not-a-uuid', headers: rt.auth() }),
    await rt.app!.inject({ url: '/v1/roles' }),
    await rt.app!.inject({ url: '/docs/json' }),
  ];
  for (const res of answers) {
    const h = res.headers;
    assert.equal(h['x-content-type-options'], 'nosniff');
    assert.equal(h['x-frame-options'], 'SAMEORIGIN');
    assert.match(String(h['strict-transport-security']), /max-age=\d+/);
    assert.match(String(h['content-security-policy']), /default-src 'self'/);
    assert.match(String(h['content-security-policy']), /object-src 'none'/);
    assert.equal(h['referrer-policy'], 'no-referrer');
    assert.equal(h['cross-origin-resource-policy'], 'same-origin');
    assert.equal(h['x-powered-by'], undefined);
  }
});

test('the CSP allows inline styles for the API reference UI alone: the recruiter page and every other answer have none', async () => {
  const styleSrc = (res: { headers: Record<string, unknown> }) =>
    String(res.headers['content-security-policy']).split(';').map((d) => d.trim()).find((d) => d.startsWith('style-src ')) ?? '';
  for (const url of ['/', '/app.js', '/v1/roles', '/healthz', '/docsx', '/v1/roles?x=/docs']) {
    assert.equal(styleSrc(await rt.app!.inject({ url, headers: rt.auth() })), "style-src 'self'", url);
  }
  for (const url of ['/docs', '/docs/', '/docs/json', '/docs/static/index.html', '/docs?x=1']) {
    assert.equal(styleSrc(await rt.app!.inject({ url })), "style-src 'self' 'unsafe-inline'", url);
  }
});

test('CORS follows CORS_ORIGINS: an allowed origin is named back, any other gets no CORS grant', async () => {
  const get = (origin: string) => rt.app!.inject({ url: '/v1/roles', headers: { ...rt.auth(), origin } });
  const preflight = (origin: string) =>
    rt.app!.inject({ method: 'OPTIONS', url: '/v1/matching-runs', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

  const allowed = await get(ALLOWED_ORIGIN);
  assert.equal(allowed.headers['access-control-allow-origin'], ALLOWED_ORIGIN);
  assert.match(String(allowed.headers.vary), /Origin/i, 'caches keep answers for different origins apart');
  const pre = await preflight(ALLOWED_ORIGIN);
  assert.equal(pre.statusCode, 204);
  assert.equal(pre.headers['access-control-allow-origin'], ALLOWED_ORIGIN);
  // Every request header the API reads is allowed: one that was not (x-request-id) made the browser refuse the request.
  assert.deepEqual(String(pre.headers['access-control-allow-headers']).split(/,\s*/).sort(), ['authorization', 'content-type', 'idempotency-key', 'if-none-match', 'x-request-id']);
  // And every answer header it documents can be read, the rate limits' among them.
  for (const header of ['etag', 'location', 'retry-after', 'x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    assert.ok(String(allowed.headers['access-control-expose-headers']).split(/,\s*/).includes(header), header);
  }
  // An erasure is a DELETE: @fastify/cors allowed only GET, HEAD and POST, and a browser then sent none.
  const erase = await rt.app!.inject({
    method: 'OPTIONS',
    url: '/v1/candidates/00000000-0000-4000-8000-000000000000',
    headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization' },
  });
  assert.equal(erase.statusCode, 204);
  assert.match(String(erase.headers['access-control-allow-methods']), /\bDELETE\b/);

  for (const origin of ['https://evil.example', 'https://recruiter.example.evil.example', 'null', 'http://recruiter.example']) {
    assert.equal((await get(origin)).headers['access-control-allow-origin'], undefined, origin);
    assert.equal((await preflight(origin)).headers['access-control-allow-origin'], undefined, `${origin} preflight`);
  }
  assert.equal(allowed.headers['access-control-allow-credentials'], undefined, 'bearer keys, not cookies: no credentialed CORS');
});
