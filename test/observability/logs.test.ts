// Logs of a run: every line carries runId, orgId and iteration (model layer included), stops say why, and no PII.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CANARY, recordedRun, REFLECTOR_STOP, startLlmRig, type LlmRig } from './llm-run.js';

let rig: LlmRig;
let run: { id: string };
let orgId: string;

before(async () => {
  rig = await startLlmRig();
  run = await recordedRun(rig.rt);
  orgId = (await rig.rt.db.query<{ org_id: string }>('SELECT org_id FROM matching_runs WHERE id = $1', [run.id])).rows[0]!.org_id;
});
after(() => rig.close());

const linesOf = (runId: string) => rig.rt.logs.filter((l) => l.runId === runId);

test('every line of the run carries runId, orgId and the iteration; model-layer lines belong to the run', () => {
  const lines = linesOf(run.id);
  assert.ok(lines.length >= 4, `only ${lines.length} lines carry the run id`);
  for (const line of lines) {
    assert.equal(line.orgId, orgId, JSON.stringify(line));
    assert.ok(Number.isInteger(line.iteration) && (line.iteration as number) >= 1, `no iteration: ${JSON.stringify(line)}`);
  }
  // Everything the agents and the model layer logged (they name their agent) was logged inside a run.
  const agentLines = rig.rt.logs.filter((l) => typeof l.agent === 'string');
  assert.ok(agentLines.length > 0);
  for (const line of agentLines) assert.equal(line.runId, run.id, `an agent line outside the run: ${JSON.stringify(line)}`);
  const retried = lines.find((l) => l.msg === 'model attempt failed');
  assert.ok(retried, 'the 500 was logged by the model layer');
  assert.equal(retried.agent, 'scorer');
  assert.equal(retried.willRetry, true);
  assert.equal(retried.iteration, 1);
  const unscored = lines.find((l) => l.msg === 'candidate left unscored');
  assert.ok(unscored, 'the unscored candidate was logged by the scorer');
  assert.match(String(unscored.candidateId), /^[0-9a-f-]{36}$/, 'by id, never by name');
});

test('stops are logged with their reasoning: the reflector’s words, at its iteration', () => {
  const lines = linesOf(run.id);
  const stop = lines.find((l) => l.msg === `Stopping iterations at 2: ${REFLECTOR_STOP}`);
  assert.ok(stop, `no stop line among: ${lines.map((l) => l.msg).join(' | ')}`);
  assert.equal(stop.iteration, 2);
  const finished = lines.find((l) => l.msg === `run succeeded: reflector: ${REFLECTOR_STOP}`);
  assert.ok(finished);
  assert.deepEqual([finished.status, finished.reason, finished.iteration], ['succeeded', 'reflector', 2]);
});

test('no PII, resume text or secret in any log line, at debug level', () => {
  assert.equal(rig.rt.config.LOG_LEVEL, 'debug');
  const text = rig.rt.logText();
  assert.ok(text.length > 1000, 'there are logs to search');
  for (const canary of [CANARY.name, CANARY.email, CANARY.phone, CANARY.resumeWord, 'Vantablack', 'sk-test-observability']) {
    assert.ok(!text.includes(canary), `"${canary}" appears in the logs`);
  }
  // And none of the pool's resume sentences either: resume text is never logged, scrubbed or not.
  assert.ok(!text.includes('Built Go microservices on Kubernetes'), 'a resume sentence appears in the logs');
});

test('the canary’s text did reach the model, scrubbed: the PII check above is not vacuous', () => {
  const bodies = rig.server.chatRequests().map((r) => JSON.stringify(r.body));
  assert.ok(bodies.some((b) => b.includes(CANARY.resumeWord)), 'the canary was scored');
  for (const canary of [CANARY.name, CANARY.email, CANARY.phone]) assert.ok(!bodies.some((b) => b.includes(canary)), `"${canary}" was sent to the model`);
});
