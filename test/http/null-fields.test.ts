// An optional field of a request body sent as JSON null is a field left out (docs/api.md): many clients' serializers
// write null for a field without a value, and our answers carry null for one. A required field is still required.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
});
after(() => rt.close());

const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
  rt.app!.inject({ method: 'POST', url, headers: { ...rt.auth(), ...headers }, payload });

const ROLE_OPTIONALS = { mustHaveSkills: null, niceToHaveSkills: null, location: null, remote: null, seniority: null, minYearsExperience: null };
const PARAMS_NULL = { maxIterations: null, scoreThreshold: null, targetStrong: null, scoreLimit: null, budget: null };
const DEFAULT_PARAMS = { maxIterations: 3, scoreThreshold: 70, targetStrong: 5, scoreLimit: 15, budget: { maxTokens: 200_000, maxCostUsd: 2 } };

test('a role whose optional fields are null is the role without them', async () => {
  const res = await post('/v1/roles', { title: 'Nulls', description: 'Sent by a client that writes null', ...ROLE_OPTIONALS });
  assert.equal(res.statusCode, 201, res.body);
  const role = res.json();
  assert.deepEqual([role.mustHaveSkills, role.niceToHaveSkills, role.location, role.remote, role.seniority, role.minYearsExperience], [[], [], null, null, null, null]);
  // What an answer carries can be sent back: the role read, less what the server owns.
  const { id: _id, createdAt: _at, ...readBack } = role;
  assert.equal((await post('/v1/roles', readBack)).statusCode, 201);
  // Required fields stay required, null or not.
  const refused = await post('/v1/roles', { title: null, description: null });
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(refused.json().errors.map((e: Json) => e.path).sort(), ['body.description', 'body.title']);
});

test('a candidate whose optional fields are null is stored without them; a required null names its path', async () => {
  const nulls = { name: null, email: null, phone: null, headline: null, location: null, yearsExperience: null, skills: null };
  const res = await post('/v1/candidates', { candidates: [{ externalId: 'nulls', resume: 'Go engineer on Kubernetes.', ...nulls }] });
  assert.equal(res.statusCode, 200, res.body);
  const got = (await rt.app!.inject({ url: `/v1/candidates/${res.json().items[0].id}`, headers: rt.auth() })).json();
  assert.deepEqual([got.name, got.email, got.phone, got.headline, got.location, got.yearsExperience], [null, null, null, null, null, null]);
  assert.ok(got.skills.includes('Go'), 'skills sent as null are extracted from the resume, as when left out');
  const again = await post('/v1/candidates', { candidates: [{ externalId: 'nulls', resume: 'Go engineer on Kubernetes.' }] });
  assert.equal(again.json().items[0].status, 'unchanged', 'null and left out are one candidate');
  const refused = await post('/v1/candidates', { candidates: [{ externalId: 'nulls', resume: null }] });
  assert.equal(refused.statusCode, 400);
  assert.deepEqual(refused.json().errors.map((e: Json) => e.path), ['body.candidates.0.resume']);
});

test('run parameters sent as null take their defaults, an inline role may carry nulls, and role: null beside roleId is left out', async () => {
  const inline = await post('/v1/matching-runs', { role: { ...GO_ROLE, ...ROLE_OPTIONALS }, roleId: null, ...PARAMS_NULL });
  assert.equal(inline.statusCode, 202, inline.body);
  assert.deepEqual(inline.json().params, DEFAULT_PARAMS);
  const roleId = inline.json().roleId as string;
  const byId = await post('/v1/matching-runs', { role: null, roleId, budget: { maxTokens: null, maxCostUsd: 1 } });
  assert.equal(byId.statusCode, 202, byId.body);
  assert.deepEqual(byId.json().params.budget, { maxTokens: 200_000, maxCostUsd: 1 });
  const forRole = await post(`/v1/roles/${roleId}/matching-runs`, PARAMS_NULL);
  assert.equal(forRole.statusCode, 202, forRole.body);
  assert.deepEqual(forRole.json().params, DEFAULT_PARAMS);
  // Neither role nor roleId, however spelt, is still a 400.
  assert.equal((await post('/v1/matching-runs', { role: null, roleId: null })).statusCode, 400);
  // A retry that spells a field left out as null is the same request: the first run, not 422.
  const first = await post('/v1/matching-runs', { roleId, maxIterations: 1 }, { 'idempotency-key': 'null-or-absent' });
  const retry = await post('/v1/matching-runs', { roleId, maxIterations: 1, scoreLimit: null, role: null }, { 'idempotency-key': 'null-or-absent' });
  assert.equal(retry.statusCode, 202, retry.body);
  assert.equal(retry.json().id, first.json().id);
  for (const res of [inline, byId, forRole, first]) await post(`/v1/matching-runs/${res.json().id}/cancel`, {});
});

test('the OpenAPI document says which request fields take null: the optional ones, not the required ones', async () => {
  const doc = (await rt.app!.inject({ url: '/docs/json' })).json();
  const body = (path: string) => {
    const content = doc.paths[path].post.requestBody.content['application/json'].schema;
    return (content.anyOf ? content.anyOf.find((s: Json) => s.type === 'object') : content) as Json;
  };
  const takesNull = (schema: Json): boolean =>
    schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null')) || (schema.anyOf ?? []).some(takesNull);
  const role = body('/v1/roles');
  for (const field of Object.keys(ROLE_OPTIONALS)) assert.ok(takesNull(role.properties[field]), `role.${field}`);
  for (const field of ['title', 'description']) assert.ok(!takesNull(role.properties[field]), `role.${field} is required`);
  const candidate = body('/v1/candidates').properties.candidates.items;
  for (const field of ['name', 'email', 'phone', 'headline', 'location', 'yearsExperience', 'skills']) assert.ok(takesNull(candidate.properties[field]), `candidate.${field}`);
  for (const field of ['externalId', 'resume']) assert.ok(!takesNull(candidate.properties[field]), `candidate.${field} is required`);
  const run = body('/v1/matching-runs');
  for (const field of [...Object.keys(PARAMS_NULL), 'role', 'roleId']) assert.ok(takesNull(run.properties[field]), `run.${field}`);
  assert.equal(run.properties.maxIterations.default, 3, 'a parameter still documents its default');
  assert.deepEqual(run.properties.budget.default, DEFAULT_PARAMS.budget);
  const budget = run.properties.budget.anyOf.find((s: Json) => s.type === 'object');
  assert.ok(takesNull(budget.properties.maxTokens) && budget.properties.maxTokens.default === 200_000, 'budget.maxTokens');
  for (const field of Object.keys(PARAMS_NULL)) assert.ok(takesNull(body('/v1/roles/{id}/matching-runs').properties[field]), `stored role's run.${field}`);
  // That route's body may be left out, but a body of JSON null is a 400 (not an optional field): not listed.
  const forRole = doc.paths['/v1/roles/{id}/matching-runs'].post.requestBody;
  assert.equal(forRole.required, false);
  assert.ok(!takesNull(forRole.content['application/json'].schema), 'a null body is not documented as taken');
  // An answer's parameters are all set: no null there.
  const answer = doc.components.schemas.MatchingRun.properties.params;
  assert.equal(answer.properties.maxIterations.type, 'integer');
  assert.deepEqual([...answer.required].sort(), Object.keys(DEFAULT_PARAMS).sort());
});

test('a required text that is only whitespace is refused with its path, and nothing is written; an optional one is taken as sent', async () => {
  const count = async (table: string) => (await rt.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
  const [roles, candidates] = [await count('roles'), await count('candidates')];
  const role = await post('/v1/roles', { title: ' ', description: '\u3000\n\t' });
  assert.equal(role.statusCode, 400, role.body);
  assert.deepEqual(role.json().errors.map((e: Json) => [e.path, e.message]).sort(), [['body.description', 'must not be only whitespace'], ['body.title', 'must not be only whitespace']]);
  const upload = await post('/v1/candidates', { candidates: [{ externalId: 'fine', resume: 'Go engineer.' }, { externalId: ' ', resume: ' \n ' }] });
  assert.equal(upload.statusCode, 400, upload.body);
  assert.deepEqual(upload.json().errors.map((e: Json) => e.path).sort(), ['body.candidates.1.externalId', 'body.candidates.1.resume']);
  const run = await post('/v1/matching-runs', { role: { ...GO_ROLE, title: '  ' } });
  assert.equal(run.statusCode, 400, run.body);
  assert.deepEqual([await count('roles'), await count('candidates')], [roles, candidates]);
  // A client that writes blanks for what it lacks loses no batch over them.
  const blanks = await post('/v1/candidates', { candidates: [{ externalId: 'blanks', resume: 'Go engineer.', name: ' ', phone: '   ', skills: ['go', ' '] }] });
  assert.equal(blanks.statusCode, 200, blanks.body);
});
