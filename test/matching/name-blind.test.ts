// Scrubbing makes scoring name-blind: the same resume under other names and contact details scores the same.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { candidate, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime();
});
after(() => rt.close());

const BODY = `Senior backend engineer, 9 years. Built Go microservices on Kubernetes with gRPC and PostgreSQL.
Led a team of 5 and cut p99 latency by 40%. Based in Berlin, open to remote.`;

const PEOPLE = [
  { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0000', city: 'https://ada.dev' },
  { name: 'Mohammed Al-Sayed', email: 'm.alsayed@mail.example', phone: '(555) 123-4567', city: 'linkedin.com/in/malsayed' },
  { name: 'Zhang Wei', email: 'zhang.wei [at] example [dot] cn', phone: '+86 138 0013 8000', city: 'github.com/zwei' },
];

test('identical resumes under different names and contact details get identical heuristic scores', async () => {
  const candidates = PEOPLE.map((p, i) =>
    candidate(`nb-${i}`, { name: p.name, email: p.email, phone: p.phone, resume: `${p.name}\n${p.email} | ${p.phone} | ${p.city}\n\n${BODY}\n${p.name.split(' ')[0]} enjoys mentoring.` }),
  );
  assert.equal((await rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } })).statusCode, 200);
  const id = (await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: GO_ROLE, maxIterations: 1, targetStrong: 50 } })).json().id;
  const done = await waitFor(async () => {
    const r = (await rt.app!.inject({ url: `/v1/matching-runs/${id}`, headers: rt.auth() })).json();
    return r.status === 'succeeded' ? r : null;
  });
  assert.equal(done.shortlist.length, 3);
  const [a, b, c] = done.shortlist;
  assert.deepEqual(b.subscores, a.subscores);
  assert.deepEqual(c.subscores, a.subscores);
  assert.equal(new Set(done.shortlist.map((e: { totalScore: number }) => e.totalScore)).size, 1);
  const texts = await rt.db.query<{ scrubbed_text: string }>("SELECT scrubbed_text FROM candidates WHERE external_id LIKE 'nb-%'");
  assert.equal(new Set(texts.rows.map((r) => r.scrubbed_text)).size, 1, 'the scrubbed texts are identical');
});
