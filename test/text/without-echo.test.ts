// What a model server's error says of its own, without what it echoes of the request; and a server's error logged
// without the words of the request around it (no ModelCallError to say what was sent) keeps only its fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APIError } from 'openai';
import { serializeError } from '../../src/log-errors.js';
import { ModelCallError } from '../../src/llm/errors.js';
import { withoutEcho } from '../../src/text/without-echo.js';

const PROMPT = 'Score this resume.\n<resume>\nPlatform engineer; my manager Ingrid Halvorsen signed off the Terraform rollout.\n</resume>';

test('a stretch of three or more words in a row that the request has is cut; the server’s own words stay', () => {
  const message = 'Input rejected by the moderation layer (category: personal data) near: manager Ingrid Halvorsen signed off the Terraform. Retry with other input.';
  assert.equal(withoutEcho(message, PROMPT), 'Input rejected by the moderation layer (category: personal data) near: [...]. Retry with other input.');
  // Case and punctuation between the words do not hide an echo; two echoes are cut apart.
  assert.equal(withoutEcho('saw "PLATFORM ENGINEER; my" then <resume> Ingrid Halvorsen signed', PROMPT), 'saw "[...]" then <resume> [...]');
  // Nothing of the request in it, or no request: unchanged.
  assert.equal(withoutEcho('maximum context length is 4096 tokens', PROMPT), 'maximum context length is 4096 tokens');
  assert.equal(withoutEcho('manager Ingrid Halvorsen signed', ''), 'manager Ingrid Halvorsen signed');
});

test('an echo of the request as JSON is cut as a plain one: its escapes leave no short line of the request behind', () => {
  const sent = 'Score this resume.\n<resume>\nIngrid Halvorsen\nSnarkwidget toolkit\nPlatform engineer; my manager signed off the Terraform rollout.\n</resume>';
  const message = `upstream failed for request ${JSON.stringify({ messages: [{ role: 'user', content: sent }] })}`;
  const cut = withoutEcho(message, sent);
  for (const word of ['Halvorsen', 'Snarkwidget', 'Terraform']) assert.ok(!cut.includes(word), cut);
  assert.ok(cut.startsWith('upstream failed for request'), cut);
});

test('a server’s error logged alone keeps its status, code and type, not its words; inside a ModelCallError, the words without the echo', () => {
  const body = { message: `Invalid prompt near manager Ingrid Halvorsen signed off the Terraform rollout`, type: 'invalid_request_error', code: 'content_filter' };
  const apiError = APIError.generate(400, { error: body }, undefined, new Headers());
  const alone = serializeError(apiError) as Record<string, unknown>;
  assert.deepEqual([alone.status, alone.code, alone.errorType], [400, 'content_filter', 'invalid_request_error']);
  assert.ok(!JSON.stringify(alone).includes('Halvorsen'), JSON.stringify(alone));
  const wrapped = serializeError(new ModelCallError({ agent: 'scorer', model: 'm', status: 400, retryable: false, attempts: 1, cause: apiError, sent: PROMPT })) as Record<string, unknown>;
  const cause = wrapped.cause as Record<string, unknown>;
  assert.equal(cause.message, '400 Invalid prompt near [...]');
  assert.ok(String(wrapped.message).endsWith(': 400 Invalid prompt near [...]'), String(wrapped.message));
  assert.ok(!JSON.stringify(wrapped).includes('Halvorsen'));
});
