// An upload's scrubbing gives other work turns of the event loop: one batch of long resumes does not stall the process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCandidateService } from '../../src/candidates/candidate-service.js';
import type { CandidateStore } from '../../src/candidates/candidate-store.js';
import type { Database } from '../../src/db/database.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import { candidate } from '../support/fixtures.js';

test('scrubbing a batch of long resumes yields to other work between slices, before the batch reaches the database', async () => {
  const paragraph = 'Led the payments platform team at Acme (manager: Jane Roe), wrote Go services, on call for Kubernetes. ';
  const inputs = Array.from({ length: 20 }, (_, i) => candidate(`long-${i}`, { resume: paragraph.repeat(300) }));
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    if (ticking) setImmediate(tick);
  };
  let turnsBeforeDatabase = -1;
  const reached = new Error('the batch reached the store');
  const store = {
    existingHashes: async () => {
      turnsBeforeDatabase = turns;
      throw reached;
    },
  } as unknown as CandidateStore;
  const service = createCandidateService({ db: { kind: 'embedded' } as Database, store, embedder: createLocalEmbedder() });
  setImmediate(tick);
  try {
    await assert.rejects(service.upsert('00000000-0000-4000-8000-000000000001', inputs), (err) => err === reached);
  } finally {
    ticking = false;
  }
  // Twenty resumes of ~30,000 characters take well over the 10 ms slice to scrub: other work ran in between.
  assert.ok(turnsBeforeDatabase >= 2, `other work got ${turnsBeforeDatabase} turns while the batch was scrubbed`);
});
