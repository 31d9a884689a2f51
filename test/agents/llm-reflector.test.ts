// The LLM reflector: what reaches its prompt.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeReply } from '../support/fake-llm-server.js';
import { contents, role, setupAgents } from './llm-harness.js';

const round = { role, iteration: 2, maxIterations: 3, scoreThreshold: 70, targetStrong: 5, roundScores: [80, 40], bestBefore: 75, bestAfter: 80, strongBefore: 1, strongAfter: 2 };

test('used queries from a checkpoint an older release wrote unscrubbed are scrubbed before they reach the reflector', async (t) => {
  const h = await setupAgents();
  t.after(h.close);
  const email = 'old.checkpoint.canary@example.org';
  h.server.script(fakeReply.json({ stop: false, reasoning: 'Keep going.', hints: ['fintech'] }));
  const out = await h.agents.reflector.reflect({ ...round, usedQueries: [`rust ${email}`, 'go payments +1 415 555 0134'] }, h.ctx);
  assert.deepEqual(out, { stop: false, reasoning: 'Keep going.', hints: ['fintech'] });
  const user = contents(h.server.chatRequests()[0]).join('\n');
  assert.equal(user.includes(email), false, user);
  assert.equal(user.includes('555 0134'), false, user);
  assert.match(user, /rust \[EMAIL\]/);
  assert.match(user, /go payments \[PHONE\]/);
});

test('a reasoning of invisible characters alone is re-asked: a stop is always explained', async (t) => {
  const h = await setupAgents();
  t.after(h.close);
  h.server.script(fakeReply.json({ stop: true, reasoning: '\u2060\u200b', hints: [] }), fakeReply.json({ stop: true, reasoning: 'Five strong candidates.', hints: [] }));
  const out = await h.agents.reflector.reflect({ ...round, usedQueries: ['rust'] }, h.ctx);
  assert.deepEqual(out, { stop: true, reasoning: 'Five strong candidates.', hints: [] });
  assert.equal(h.server.chatRequests().length, 2);
});
