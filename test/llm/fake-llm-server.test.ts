// The fake provider itself, through the real openai client: embeddings, in-flight counting, closing with hangs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLlmClient } from '../../src/llm/client.js';
import { fakeReply, startFakeLlmServer } from '../support/fake-llm-server.js';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

test('embeddings: deterministic unit vectors of the model dimension, similar for texts sharing words', async (t) => {
  const server = await startFakeLlmServer();
  t.after(() => server.close());
  const client = createLlmClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000 });
  // The client asks for base64 by default and decodes it; the fake has to speak both encodings.
  const res = await client.embeddings.create({ model: 'fake-embed', input: ['senior rust engineer', 'rust engineer', 'pastry chef'] });
  const [a, b, c] = res.data.map((d) => d.embedding);
  assert.equal(a?.length, 1536);
  assert.ok(Math.abs(cosine(a!, a!) - 1) < 1e-5);
  assert.ok(cosine(a!, b!) > cosine(a!, c!));
  const again = await client.embeddings.create({ model: 'fake-embed', input: 'senior rust engineer', encoding_format: 'float' });
  assert.ok(again.data[0]!.embedding.every((x, i) => Math.abs(x - a![i]!) < 1e-6));
  assert.ok(res.usage.prompt_tokens > 0);
  const small = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'x', dimensions: 256 });
  assert.equal(small.data[0]?.embedding.length, 256);
  await assert.rejects(client.embeddings.create({ model: 'no-such-embed', input: 'x' }), /does not exist/);
});

test('in-flight requests are counted, current and max', async (t) => {
  const server = await startFakeLlmServer();
  t.after(() => server.close());
  const client = createLlmClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 10_000 });
  // Each answer waits for all three requests, so none can finish early however slowly the others arrive.
  server.setHandler(async () => {
    await server.waitForRequests(3);
    return fakeReply.text('ok');
  });
  const calls = [1, 2, 3].map(() => client.chat.completions.create({ model: 'fake-chat', messages: [{ role: 'user', content: 'x' }] }));
  await server.waitForRequests(3);
  assert.equal(server.inFlight, 3);
  await Promise.all(calls);
  assert.equal(server.maxInFlight, 3);
});

test('an unscripted chat request fails loudly with a 400', async (t) => {
  const server = await startFakeLlmServer();
  t.after(() => server.close());
  const client = createLlmClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 2_000 });
  await assert.rejects(client.chat.completions.create({ model: 'fake-chat', messages: [{ role: 'user', content: 'x' }] }), /no scripted reply/);
});

test('close() finishes even while a request hangs, and the client sees a connection error', async () => {
  const server = await startFakeLlmServer();
  const client = createLlmClient({ baseUrl: server.url, apiKey: 'k', timeoutMs: 60_000 });
  server.script(fakeReply.hang());
  const pending = client.chat.completions.create({ model: 'fake-chat', messages: [{ role: 'user', content: 'x' }] }).then(
    () => null,
    (e: unknown) => e,
  );
  await server.waitForRequests(1);
  const started = Date.now();
  await server.close();
  assert.ok(Date.now() - started < 5_000, 'close() did not wait for the hanging request');
  assert.ok((await pending) instanceof Error);
});
