// The offline embedder: stable unit vectors that put related resumes and roles close together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOCAL_EMBEDDING_DIMENSION, LOCAL_EMBEDDING_MODEL, createLocalEmbedder } from '../../src/embeddings/local-embedder.js';

const cosine = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
const norm = (v: number[]) => Math.sqrt(cosine(v, v));

const backend = 'Senior backend engineer: Kubernetes, Docker and Helm on AWS; Go and PostgreSQL microservices; CI/CD with Jenkins.';
const backendAgain = 'Platform engineer running Go services on Kubernetes with Helm charts, Postgres databases and Jenkins pipelines on AWS.';
const nurse = 'Registered nurse in a busy emergency ward: patient care, triage, medication administration and electronic health records.';

test('declares its model and dimension and returns one unit vector per text', async () => {
  const embedder = createLocalEmbedder();
  assert.equal(embedder.model, LOCAL_EMBEDDING_MODEL);
  assert.equal(embedder.dimension, LOCAL_EMBEDDING_DIMENSION);
  assert.equal(embedder.dimension, 512);
  const vectors = await embedder.embed([backend, nurse, '', '[NAME] [EMAIL]']);
  assert.equal(vectors.length, 4);
  for (const v of vectors) {
    assert.equal(v.length, 512);
    assert.ok(v.every(Number.isFinite));
    assert.ok(Math.abs(norm(v) - 1) < 1e-9, `norm ${norm(v)}`);
  }
});

test('the same text gives the same vector bit for bit, across calls and instances', async () => {
  const [a] = await createLocalEmbedder().embed([backend]);
  const [b] = await createLocalEmbedder().embed([backend]);
  assert.deepEqual(a, b);
});

test('related texts are closer than unrelated ones', async () => {
  const [a, b, c] = await createLocalEmbedder().embed([backend, backendAgain, nurse]);
  const related = cosine(a!, b!);
  const unrelated = cosine(a!, c!);
  assert.ok(related > unrelated + 0.2, `related ${related.toFixed(3)} vs unrelated ${unrelated.toFixed(3)}`);
});

test('skill aliases land close together', async () => {
  const [alias, canonical, other] = await createLocalEmbedder().embed([
    'Operated k8s clusters and wrote golang services.',
    'Operated Kubernetes clusters and wrote Go services.',
    'Operated cash registers and wrote sales reports.',
  ]);
  const near = cosine(alias!, canonical!);
  const far = cosine(alias!, other!);
  assert.ok(near > far + 0.2, `alias ${near.toFixed(3)} vs other ${far.toFixed(3)}`);
});

test('a non-default dimension is a different model id', async () => {
  const embedder = createLocalEmbedder({ dimension: 1024 });
  assert.notEqual(embedder.model, LOCAL_EMBEDDING_MODEL);
  const [v] = await embedder.embed([backend]);
  assert.equal(v!.length, 1024);
});

test('an aborted signal stops the batch', async () => {
  const controller = new AbortController();
  controller.abort(new Error('stop'));
  await assert.rejects(createLocalEmbedder().embed([backend], { signal: controller.signal }), /stop/);
});

test('embedding has no pathological cost: a thousand resume-sized texts take well under five seconds of CPU', async () => {
  // A guard against a quadratic or backtracking path, not a speed target (those are in `npm run bench`): ~0.2 s here,
  // counted in CPU time so that a loaded machine descheduling the test does not count.
  const texts = Array.from({ length: 1000 }, (_, i) => `${backend} ${nurse} Resume ${i}. `.repeat(6));
  const started = process.cpuUsage();
  await createLocalEmbedder().embed(texts);
  const { user, system } = process.cpuUsage(started);
  const ms = (user + system) / 1000;
  assert.ok(ms < 5000, `${ms.toFixed(0)} ms of CPU`);
});
