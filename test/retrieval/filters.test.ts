// Search filters read only what a model may read: a count or a search result must not reveal raw PII that the
// scrubbed copies hide, and a row whose copies are stale matches no location or skill filter until it is rewritten.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKeyStore } from '../../src/auth/api-keys.js';
import { createCandidateService } from '../../src/candidates/candidate-service.js';
import { createCandidateStore, type CandidateStore } from '../../src/candidates/candidate-store.js';
import { rescrubCandidates } from '../../src/candidates/rescrub.js';
import type { Database } from '../../src/db/database.js';
import { createLocalEmbedder } from '../../src/embeddings/local-embedder.js';
import type { SearchFilters } from '../../src/matching/domain.js';
import { createSearch, type Search } from '../../src/retrieval/search.js';
import { SCRUB_RULES_VERSION } from '../../src/text/scrubber.js';
import { createTestDatabase } from '../support/database.js';
import { candidate } from '../support/fixtures.js';

let db: Database;
let store: CandidateStore;
let search: Search;
let orgId: string;
const ids = new Map<string, string>();

const POOL = [
  candidate('baker', { name: 'Sam Holt', location: '221B Baker Street, London NW1 6XE', skills: ['Go', 'Kubernetes'], yearsExperience: 6 }),
  candidate('leeds', { name: 'Pat Doe', location: 'Leeds, UK · pat.doe@example.org', skills: ['Go', 'pat.doe@example.org'], yearsExperience: 6 }),
  candidate('berlin', { name: 'Kim Ode', location: 'Berlin, DE', skills: ['Rust'], yearsExperience: 6 }),
];

before(async () => {
  db = await createTestDatabase();
  orgId = await createApiKeyStore(db).ensureOrganisation('default');
  store = createCandidateStore(db);
  const embedder = createLocalEmbedder();
  search = createSearch({ db, embedder });
  const written = await createCandidateService({ db, store, embedder }).upsert(orgId, POOL);
  for (const w of written) ids.set(w.externalId, w.id);
});
after(() => db?.close());

const count = (filters: SearchFilters) => store.countMatching(orgId, filters);
const found = async (filters: SearchFilters) =>
  (await search.search({ orgId, queries: ['engineer'], filters, excludeIds: [], limit: 50 })).map((h) => h.id).sort();

test('a location filter matches the scrubbed location: a raw street, postcode or email counts nobody', async () => {
  const stored = await db.query<{ location: string; scrubbed_location: string }>(
    'SELECT location, scrubbed_location FROM candidates WHERE id = $1',
    [ids.get('leeds')],
  );
  assert.deepEqual(stored.rows[0], { location: 'Leeds, UK · pat.doe@example.org', scrubbed_location: 'Leeds, UK · [EMAIL]' });
  for (const probe of ['Baker', 'Baker Street', 'NW1', 'NW1 6XE', '221B', 'pat.doe', 'example.org', '@']) {
    assert.equal(await count({ location: probe }), 0, `"${probe}" is only in raw locations`);
    assert.deepEqual(await found({ location: probe }), [], `a search filtered on "${probe}" finds nobody`);
  }
  assert.equal(await count({ location: 'leeds' }), 1, 'what the scrubbed location shows still matches, in any case');
  assert.deepEqual(await found({ location: 'Leeds' }), [ids.get('leeds')]);
  assert.equal(await count({ location: 'Berlin', minYears: 5 }), 1);
});

test('a location filter does not see the placeholders: how many locations held an email or an address is not told', async () => {
  for (const probe of ['EMAIL', '[EMAIL]', 'address', 'DRESS', '[', ']', 'UK · [', 'NAME', 'URL', 'PHONE']) {
    assert.equal(await count({ location: probe }), 0, `"${probe}" is only in placeholders`);
    assert.deepEqual(await found({ location: probe }), [], `a search filtered on "${probe}" finds nobody`);
  }
  assert.equal(await count({ location: 'UK ·' }), 1, 'the words around a placeholder still match');
});

test('a skill filter matches the keys of the scrubbed skills: a skill that was an email counts nobody', async () => {
  assert.equal(await count({ skillsAny: ['pat.doe@example.org'] }), 0);
  assert.equal(await count({ skillsAll: ['Go', 'pat.doe@example.org'] }), 0);
  assert.deepEqual(await found({ skillsAny: ['pat.doe@example.org'] }), []);
  assert.equal(await count({ skillsAll: ['go'] }), 2);
  const keys = await db.query<{ skill_keys: string[] }>('SELECT skill_keys FROM candidates WHERE id = $1', [ids.get('leeds')]);
  assert.deepEqual(keys.rows[0]!.skill_keys, ['go']);
});

test("a stale row is scrubbed again before its skills reach the expander's vocabulary: a skill older rules left as an email is not offered", async () => {
  const leeds = ids.get('leeds')!;
  // As rules before the current ones could leave a copy: the email still among the scrubbed skills.
  await db.query(`UPDATE candidates SET scrubbed_skills = '{Go,pat.doe@example.org}', scrub_version = $2 WHERE id = $1`, [
    leeds,
    SCRUB_RULES_VERSION - 1,
  ]);
  const skills = (await store.skillVocabulary(orgId)).map((s) => s.skill);
  assert.ok(skills.includes('Go'), `the vocabulary is read: ${skills.join(', ')}`);
  assert.ok(!skills.includes('pat.doe@example.org'), `the stale copy's email is not offered: ${skills.join(', ')}`);
  const row = await db.query<{ scrub_version: number }>('SELECT scrub_version FROM candidates WHERE id = $1', [leeds]);
  assert.equal(row.rows[0]!.scrub_version, SCRUB_RULES_VERSION, 'the row was rewritten first');
});

test('a stale row is scrubbed again before a location or skill filter reads it: matched on its current copy, never its raw columns or an older copy', async () => {
  const leeds = ids.get('leeds')!;
  const baker = ids.get('baker')!;
  // As migration 010 left a row (no scrubbed location, skill keys of the raw skills), and as older rules left
  // another (a copy that still holds what the current rules remove): every row is stale right after an upgrade.
  const makeStale = async () => {
    await db.query(
      `UPDATE candidates SET scrubbed_location = NULL, scrubbed_skills = '{}', skill_keys = '{go,pat.doe@example.org}', scrub_version = 0
       WHERE id = $1`,
      [leeds],
    );
    await db.query(`UPDATE candidates SET scrubbed_location = '221B Baker Street, London [ADDRESS]', scrub_version = $2 WHERE id = $1`, [
      baker,
      SCRUB_RULES_VERSION - 1,
    ]);
  };
  const versions = async () =>
    (await db.query<{ scrub_version: number }>('SELECT scrub_version FROM candidates WHERE id = ANY($1::uuid[]) ORDER BY id', [[leeds, baker]])).rows.map(
      (r) => r.scrub_version,
    );

  // A search first: before the backfill has run, a run's filtered search finds the candidates it would find after it.
  await makeStale();
  assert.deepEqual(await found({ location: 'Leeds' }), [leeds], 'found on the current copy, rewritten for the search');
  assert.deepEqual(await versions(), [SCRUB_RULES_VERSION, SCRUB_RULES_VERSION], "the organisation's stale rows were rewritten");
  assert.deepEqual(await found({ location: 'Baker' }), [], 'the rewritten copy holds no street');

  // Then counts, as evaluate_filters makes them.
  await makeStale();
  for (const probe of ['pat.doe', 'Baker', 'London NW1', '221B']) assert.equal(await count({ location: probe }), 0, probe);
  assert.equal(await count({ skillsAny: ['pat.doe@example.org'] }), 0, 'a skill that was an email, in the raw skill keys');
  assert.equal(await count({ location: 'leeds' }), 1);
  assert.equal(await count({ skillsAll: ['Go'] }), 2, 'both Go engineers, stale a moment ago');
  assert.equal(await count({ minYears: 5 }), 3);

  // Once this process's backfill has run to its end, a row a process of the release before migration 010 rewrites
  // (raw fields and hash, nothing scrubbed) is stale until the next periodic pass or a re-upload, and matches no filter meanwhile.
  assert.equal(await rescrubCandidates(db), 0, 'nothing was left for the backfill');
  await db.query(`UPDATE candidates SET location = 'Oslo, NO', content_hash = 'written-by-the-previous-release' WHERE id = $1`, [leeds]);
  assert.equal(await count({ location: 'Oslo' }), 0, 'the new raw value is not matched');
  assert.equal(await count({ location: 'Leeds' }), 0, 'nor the copy of the old content');
  assert.ok((await found({})).includes(leeds), 'an unfiltered search still finds it');
  assert.equal(await rescrubCandidates(db), 1);
  assert.equal(await count({ location: 'Oslo' }), 1);
});
