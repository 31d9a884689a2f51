import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCandidateService, embeddingText, prepareCandidate } from '../../src/candidates/candidate-service.js';
import { codePointPrefix, createCandidateStore } from '../../src/candidates/candidate-store.js';
import type { Logger } from 'pino';
import { rescrubCandidates, startRescrubber } from '../../src/candidates/rescrub.js';
import type { Database } from '../../src/db/database.js';
import { SCRUB_RULES_VERSION } from '../../src/text/scrubber.js';
import { candidate } from '../support/fixtures.js';
import { startTestRuntime, waitFor, type TestRuntime } from '../support/runtime.js';

let rt: TestRuntime;
before(async () => {
  rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
});
after(() => rt.close());

async function upsert(candidates: unknown[]) {
  return rt.app!.inject({ method: 'POST', url: '/v1/candidates', headers: rt.auth(), payload: { candidates } });
}

async function count(table: string): Promise<number> {
  return (await rt.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n;
}

test('upsert reports created, then unchanged without new embedding work, then updated', async (t) => {
  // Every text the embedder is asked for: an unchanged candidate must cost no embedding call at all.
  const embedded: string[] = [];
  const embedder = rt.services.embedder;
  const embed = embedder.embed.bind(embedder);
  t.after(() => (embedder.embed = embed));
  embedder.embed = async (texts, opts) => (embedded.push(...texts), embed(texts, opts));
  const first = await upsert([candidate('u1'), candidate('u2')]);
  assert.equal(first.statusCode, 200);
  assert.deepEqual(first.json().items.map((i: { status: string }) => i.status), ['created', 'created']);
  const vectorsBefore = await rt.db.query<{ created_at: Date }>("SELECT created_at FROM candidate_embeddings ORDER BY created_at");
  assert.equal(embedded.length, 2);

  embedded.length = 0;
  const again = await upsert([candidate('u1'), candidate('u2')]);
  assert.deepEqual(again.json().items.map((i: { status: string }) => i.status), ['unchanged', 'unchanged']);
  assert.deepEqual(again.json().items.map((i: { id: string }) => i.id), first.json().items.map((i: { id: string }) => i.id));
  const vectorsAfter = await rt.db.query<{ created_at: Date }>("SELECT created_at FROM candidate_embeddings ORDER BY created_at");
  assert.deepEqual(vectorsAfter.rows, vectorsBefore.rows, 'unchanged candidates are not re-embedded');
  assert.deepEqual(embedded, [], 'nor sent to the embedder');

  const changed = await upsert([candidate('u1', { resume: 'Now a Rust engineer working on embedded systems.' }), candidate('u2')]);
  assert.deepEqual(changed.json().items.map((i: { status: string }) => i.status), ['updated', 'unchanged']);
  assert.equal(embedded.length, 1, 'only the changed one is embedded');
  const got = await rt.app!.inject({ url: `/v1/candidates/${changed.json().items[0].id}`, headers: rt.auth() });
  assert.equal(got.json().resume, 'Now a Rust engineer working on embedded systems.');
  assert.equal(got.json().embeddingModel, 'local-hash-v1');

  // A change to what is not embedded (contact details, the years: an ATS sync) keeps the vector: no paid call.
  embedded.length = 0;
  const vector = async () => (await rt.db.query<{ content_hash: string; embedding: string }>('SELECT content_hash, embedding::text FROM candidate_embeddings WHERE candidate_id = $1', [first.json().items[1].id])).rows;
  const [kept] = await vector();
  const contact = await upsert([candidate('u2', { email: 'new.address@example.org', yearsExperience: 9 })]);
  assert.deepEqual(contact.json().items.map((i: { status: string }) => i.status), ['updated']);
  assert.deepEqual(embedded, [], 'the embedded text is the same: not sent again');
  const [after] = await vector();
  assert.equal(after!.embedding, kept!.embedding);
  const hash = (await rt.db.query<{ content_hash: string }>('SELECT content_hash FROM candidates WHERE id = $1', [first.json().items[1].id])).rows[0]!.content_hash;
  assert.deepEqual([after!.content_hash !== kept!.content_hash, after!.content_hash], [true, hash], 'stamped with the new content: current for search and reembed');
});

test('a vector an upload meant to keep, replaced by another upload since it was read, is not kept: the upload embeds', async () => {
  const id = (await upsert([candidate('moved', { email: 'a@example.org' })])).json().items[0].id as string;
  const orgId = await orgOf(id);
  const store = createCandidateStore(rt.db);
  const embedded: string[] = [];
  const embedder = { ...rt.services.embedder, embed: async (texts: string[], opts?: { orgId?: string }) => (embedded.push(...texts), rt.services.embedder.embed(texts, opts)) };
  // Between this upload's read and its write, another upload of the candidate replaced its vector.
  const racing = {
    ...store,
    existingHashes: async (...args: Parameters<typeof store.existingHashes>) => {
      const read = await store.existingHashes(...args);
      await rt.db.query("UPDATE candidate_embeddings SET content_hash = 'another-upload' WHERE candidate_id = $1", [id]);
      return read;
    },
  };
  const service = createCandidateService({ db: rt.db, store: racing, embedder });
  const [item] = await service.upsert(orgId, [candidate('moved', { email: 'b@example.org' })]);
  assert.equal(item!.status, 'updated');
  assert.equal(embedded.length, 1, 'embedded after all');
  const rows = (await rt.db.query<{ current: boolean }>('SELECT e.content_hash = c.content_hash AS current FROM candidate_embeddings e JOIN candidates c ON c.id = e.candidate_id WHERE c.id = $1', [id])).rows;
  assert.deepEqual(rows, [{ current: true }], 'one current vector');
});

test('a skill one candidate wrote three ways that scrub alike is one skill, held by one candidate in the vocabulary', async () => {
  const id = (await upsert([candidate('zephyr', { name: 'Ada Lovelace', skills: ['Zephyr Portal', 'Zeph\u00ADyr Portal', '\uFF3A\uFF45\uFF50\uFF48\uFF59\uFF52 Portal'] })])).json().items[0].id as string;
  const orgId = await orgOf(id);
  const row = (await rt.db.query<{ scrubbed_skills: string[] }>('SELECT scrubbed_skills FROM candidates WHERE id = $1', [id])).rows[0]!;
  assert.deepEqual(row.scrubbed_skills, ['Zephyr Portal']);
  // Counted by candidates: the query expander offers the model only skills two candidates or more hold.
  await rt.db.query("UPDATE candidates SET scrubbed_skills = '{Zephyr Portal,Zephyr Portal}' WHERE id = $1", [id]);
  const vocabulary = await createCandidateStore(rt.db).skillVocabulary(orgId);
  assert.equal(vocabulary.find((v) => v.skill === 'Zephyr Portal')?.count, 1);
});

test('one invalid item rejects the whole batch, lists its path, and writes nothing', async () => {
  const before = await count('candidates');
  const res = await upsert([candidate('ok-1'), candidate('bad', { resume: '' }), candidate('bad2', { yearsExperience: 99 })]);
  assert.equal(res.statusCode, 400);
  const paths = res.json().errors.map((e: { path: string }) => e.path);
  assert.ok(paths.some((p: string) => p.includes('candidates.1.resume')), JSON.stringify(paths));
  assert.ok(paths.some((p: string) => p.includes('candidates.2.yearsExperience')), JSON.stringify(paths));
  assert.equal(await count('candidates'), before);
});

test('skills are normalised, or extracted from the resume when absent', async () => {
  const res = await upsert([
    candidate('s1', { skills: ['k8s', 'JS', 'postgres', 'Kubernetes'] }),
    candidate('s2', { resume: 'Engineer using Golang, Kubernetes and React daily.' }),
  ]);
  const [a, b] = res.json().items;
  const ga = (await rt.app!.inject({ url: `/v1/candidates/${a.id}`, headers: rt.auth() })).json();
  const gb = (await rt.app!.inject({ url: `/v1/candidates/${b.id}`, headers: rt.auth() })).json();
  assert.deepEqual(ga.skills, ['Kubernetes', 'JavaScript', 'PostgreSQL']);
  for (const s of ['Go', 'Kubernetes', 'React']) assert.ok(gb.skills.includes(s), `${s} in ${gb.skills}`);
});

test('raw PII stays in its columns; the scrubbed text carries none of it', async () => {
  const res = await upsert([
    candidate('pii', {
      name: 'Grace Hopper',
      email: 'grace.hopper@navy.example',
      phone: '+1 202 555 0143',
      headline: 'Grace Hopper, compiler engineer (grace.hopper@navy.example)',
      resume: 'Grace Hopper\ngrace.hopper@navy.example | +1 202 555 0143 | https://linkedin.com/in/gracehopper\nGrace led the COBOL compiler team.',
    }),
  ]);
  const id = res.json().items[0].id;
  const row = (
    await rt.db.query<{ scrubbed_text: string; scrubbed_headline: string; tsv: string }>(
      'SELECT scrubbed_text, scrubbed_headline, search_tsv::text AS tsv FROM candidates WHERE id = $1',
      [id],
    )
  ).rows[0]!;
  for (const pii of ['Grace', 'Hopper', 'grace.hopper', '555 0143', 'linkedin.com']) {
    assert.ok(!row.scrubbed_text.includes(pii), `${pii} scrubbed from ${row.scrubbed_text}`);
    assert.ok(!row.scrubbed_headline.includes(pii), `${pii} scrubbed from the headline ${row.scrubbed_headline}`);
  }
  for (const lexeme of ['grace', 'hopper', 'navy']) assert.ok(!row.tsv.includes(`'${lexeme}`), `${lexeme} not indexed: ${row.tsv}`);
  assert.match(row.tsv, /'compil'/, 'the scrubbed headline is indexed');
  assert.match(row.scrubbed_text, /COBOL compiler/);
  const got = (await rt.app!.inject({ url: `/v1/candidates/${id}`, headers: rt.auth() })).json();
  assert.equal(got.email, 'grace.hopper@navy.example', 'the candidate route returns raw PII to its owner');
  assert.equal(got.headline, 'Grace Hopper, compiler engineer (grace.hopper@navy.example)');
});

test("the candidate's own phone is scrubbed wherever the resume writes it, in a shape no pattern knows", async () => {
  const res = await upsert([candidate('own-contact', { phone: '123456', resume: 'Go engineer. Reach me on ext 12-34-56 any day.' })]);
  assert.equal(res.statusCode, 200, res.body);
  const row = (await rt.db.query<{ scrubbed_text: string }>('SELECT scrubbed_text FROM candidates WHERE external_id = $1', ['own-contact'])).rows[0]!;
  assert.doesNotMatch(row.scrubbed_text, /12-34-56/, row.scrubbed_text);
});

test('list is cursor-paginated, newest first, without resume text', async () => {
  const ids = async (res: Promise<{ json(): { items: Array<{ id: string }> } }>) => (await res).json().items.map((i) => i.id);
  // An older batch (a second older, whatever ran before this test), then the newest one.
  const older = await ids(upsert([candidate('page-old-0'), candidate('page-old-1')]));
  await rt.db.query("UPDATE candidates SET created_at = created_at - interval '1 second' WHERE id = ANY($1::uuid[])", [older]);
  const newest = await ids(upsert(Array.from({ length: 5 }, (_, i) => candidate(`page-${i}`))));
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url: string = `/v1/candidates?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await rt.app!.inject({ url, headers: rt.auth() });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.ok(body.items.length <= 3);
    for (const item of body.items) {
      assert.equal(item.resume, undefined);
      assert.ok(!seen.has(item.id), 'no item twice');
      seen.add(item.id);
    }
    cursor = body.nextCursor;
    pages++;
  } while (cursor && pages < 20);
  assert.equal(seen.size, await count('candidates'));
  // The newest batch leads the list (within it, the order is by id); the older one comes after it.
  const order = [...seen];
  assert.deepEqual(order.slice(0, 5).sort(), [...newest].sort(), 'the newest batch comes first');
  assert.ok(older.every((id) => order.indexOf(id) >= 5), 'the older batch after it');
  const bad = await rt.app!.inject({ url: '/v1/candidates?cursor=not-a-cursor', headers: rt.auth() });
  assert.equal(bad.statusCode, 400);
  // Nor is the text read: a page of long resumes was megabytes from the database for an answer without them.
  const statements: string[] = [];
  const query = rt.db.query;
  rt.db.query = ((text: string, values?: unknown[]) => (statements.push(text), query.call(rt.db, text, values))) as typeof rt.db.query;
  try {
    assert.equal((await rt.app!.inject({ url: '/v1/candidates?limit=3', headers: rt.auth() })).statusCode, 200);
  } finally {
    rt.db.query = query;
  }
  const list = statements.filter((text) => /FROM candidates c/.test(text));
  assert.equal(list.length, 1, statements.join('\n'));
  assert.doesNotMatch(list[0]!, /resume/);
});

test('delete erases the candidate, its text and its vector; a second delete is 404', async () => {
  const id = (await upsert([candidate('gone')])).json().items[0].id;
  const del = await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: rt.auth() });
  assert.equal(del.statusCode, 204);
  assert.equal((await rt.db.query('SELECT 1 FROM candidates WHERE id = $1', [id])).rowCount, 0);
  assert.equal((await rt.db.query('SELECT 1 FROM candidate_embeddings WHERE candidate_id = $1', [id])).rowCount, 0);
  assert.equal((await rt.app!.inject({ url: `/v1/candidates/${id}`, headers: rt.auth() })).statusCode, 404);
  assert.equal((await rt.app!.inject({ method: 'DELETE', url: `/v1/candidates/${id}`, headers: rt.auth() })).statusCode, 404);
});

test('roles: create 201 with Location, get, list; bad seniority is 400', async () => {
  const res = await rt.app!.inject({
    method: 'POST',
    url: '/v1/roles',
    headers: rt.auth(),
    payload: { title: 'Staff engineer', description: 'Go and k8s', mustHaveSkills: ['golang', 'k8s'], seniority: 'staff' },
  });
  assert.equal(res.statusCode, 201);
  const role = res.json();
  assert.equal(res.headers.location, `/v1/roles/${role.id}`);
  assert.deepEqual(role.mustHaveSkills, ['Go', 'Kubernetes']);
  assert.equal((await rt.app!.inject({ url: `/v1/roles/${role.id}`, headers: rt.auth() })).json().title, 'Staff engineer');
  assert.ok((await rt.app!.inject({ url: '/v1/roles', headers: rt.auth() })).json().items.some((r: { id: string }) => r.id === role.id));
  const bad = await rt.app!.inject({ method: 'POST', url: '/v1/roles', headers: rt.auth(), payload: { title: 'x', description: 'y', seniority: 'wizard' } });
  assert.equal(bad.statusCode, 400);
});

test('a batch naming one externalId twice is refused with the duplicate path', async () => {
  const res = await upsert([candidate('dup-1'), candidate('dup-2'), candidate('dup-1', { resume: 'other text' })]);
  assert.equal(res.statusCode, 400);
  assert.ok(res.json().errors.some((e: { path: string }) => e.path.includes('candidates.2.externalId')), res.body);
  assert.equal((await rt.db.query("SELECT 1 FROM candidates WHERE external_id LIKE 'dup-%'")).rowCount, 0);
});

test('timestamps are stored at millisecond precision, so a cursor equals its row', async () => {
  const r = await rt.db.query<{ table_name: string; datetime_precision: number }>(
    `SELECT table_name, datetime_precision FROM information_schema.columns
     WHERE column_name = 'created_at' AND table_name IN ('candidates', 'roles', 'matching_runs')`,
  );
  assert.equal(r.rows.length, 3);
  for (const row of r.rows) assert.equal(row.datetime_precision, 3, row.table_name);
});

test("views cut excerpts as PostgreSQL's left() would: by code point, astral characters whole", async () => {
  const texts = ['', 'plain ascii resume', 'é'.repeat(12), '😀a😀b😀c😀', 'x'.repeat(5) + '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'e\u0301 combining marks count apart', '中文简历，五年经验'];
  for (const text of texts) {
    for (const n of [0, 1, 2, 3, 5, 8, 40]) {
      const sql = (await rt.db.query<{ s: string }>('SELECT left($1::text, $2::int) AS s', [text, n])).rows[0]!.s;
      assert.equal(codePointPrefix(text, n), sql, `${JSON.stringify(text)} cut at ${n}`);
    }
  }
});

const SEAN = {
  name: "Sean O'Brien",
  email: 'sean.obrien@example.ie',
  phone: '+353 87 123 4567',
  location: 'sean.obrien@example.ie / +353 87 123 4567',
  skills: ['Go', 'Kubernetes', 'sean.obrien@example.ie'],
  resume: 'Senior Go engineer. Sean O’Brien led the payments team. Reach me on 087 123 4567.',
};
const SEAN_PII = ['sean.obrien', '123 4567', '1234567', 'O’Brien', "O'Brien", 'Sean'];
const leaks = (text: string, secrets: string[]) => secrets.filter((s) => text.includes(s));

async function orgOf(id: string): Promise<string> {
  return (await rt.db.query<{ org_id: string }>('SELECT org_id FROM candidates WHERE id = $1', [id])).rows[0]!.org_id;
}

test('location and skills reach agents, embeddings and the vocabulary scrubbed; the owner reads them raw', async () => {
  const res = await upsert([
    candidate('loc-sean', SEAN),
    candidate('loc-baker', { location: '221B Baker Street, London NW1 6XE' }),
    candidate('loc-city', { location: 'Buenos Aires, Argentina' }),
    candidate('loc-ruby', { name: 'Ruby Chen', skills: ['Ruby', 'Rails'] }),
  ]);
  const [sean, baker, city, ruby] = res.json().items.map((i: { id: string }) => i.id);
  const store = createCandidateStore(rt.db);
  const orgId = await orgOf(sean);
  const views = new Map((await store.views(orgId, [sean, baker, city, ruby])).map((v) => [v.id, v]));
  assert.equal(views.get(sean)!.location, '[EMAIL] / [PHONE]');
  assert.deepEqual(views.get(sean)!.skills, ['Go', 'Kubernetes'], 'a skill that was only an email is dropped');
  assert.deepEqual(leaks(JSON.stringify(views.get(sean)), SEAN_PII), []);
  assert.equal(views.get(baker)!.location, '[ADDRESS]');
  assert.equal(views.get(city)!.location, 'Buenos Aires, Argentina', 'a place is no person');
  assert.deepEqual(views.get(ruby)!.skills, ['Ruby', 'Ruby on Rails'], 'a known skill stays, even as a name');
  const vocabulary = (await store.skillVocabulary(orgId)).map((v) => v.skill);
  assert.ok(vocabulary.includes('Go') && !vocabulary.some((s) => s.includes('@') || s.includes('[')), vocabulary.join(', '));

  const embedded = embeddingText(prepareCandidate({ externalId: 'e', ...SEAN }));
  assert.deepEqual(leaks(embedded, SEAN_PII), [], embedded);
  assert.match(embedded, /Go, Kubernetes/);

  const got = (await rt.app!.inject({ url: `/v1/candidates/${sean}`, headers: rt.auth() })).json();
  assert.equal(got.location, SEAN.location, 'GET /v1/candidates/:id returns the raw fields to their owner');
  assert.ok(got.skills.includes('sean.obrien@example.ie'));
});

test('rows scrubbed with older rules: agents see them scrubbed at once, the backfill rewrites them, re-ingestion writes them again', async () => {
  const res = await upsert([candidate('old-sean', SEAN)]);
  const id = res.json().items[0].id;
  const orgId = await orgOf(id);
  const store = createCandidateStore(rt.db);
  // A row as the previous release left it: no scrubbed location or skills, a resume scrubbed by older rules.
  const makeOld = () =>
    rt.db.query(
      `UPDATE candidates SET scrubbed_location = NULL, scrubbed_skills = '{}', scrub_version = 0,
         scrubbed_text = 'Senior Go engineer. [NAME] O’Brien led the payments team. Reach me on 087 123 4567.' WHERE id = $1`,
      [id],
    );
  await makeOld();
  const [view] = await store.views(orgId, [id]);
  assert.deepEqual(leaks(JSON.stringify(view), SEAN_PII), [], JSON.stringify(view));
  assert.equal(view!.location, '[EMAIL] / [PHONE]');

  assert.ok((await rescrubCandidates(rt.db, { batch: 1 })) >= 1);
  const row = (
    await rt.db.query<{ scrubbed_location: string; scrubbed_skills: string[]; scrubbed_text: string; scrub_version: number }>(
      'SELECT scrubbed_location, scrubbed_skills, scrubbed_text, scrub_version FROM candidates WHERE id = $1',
      [id],
    )
  ).rows[0]!;
  assert.equal(row.scrub_version, SCRUB_RULES_VERSION);
  assert.equal(row.scrubbed_location, '[EMAIL] / [PHONE]');
  assert.deepEqual(row.scrubbed_skills, ['Go', 'Kubernetes']);
  assert.deepEqual(leaks(row.scrubbed_text, SEAN_PII), [], row.scrubbed_text);
  const hashes = await rt.db.query<{ content_hash: string }>('SELECT content_hash FROM candidate_embeddings WHERE candidate_id = $1', [id]);
  assert.deepEqual(hashes.rows, [{ content_hash: '' }], 'its vector came from the old text: marked stale for reembed');
  assert.equal(await rescrubCandidates(rt.db), 0, 'nothing is left for the next start');

  await makeOld();
  const again = await upsert([candidate('old-sean', SEAN)]);
  assert.equal(again.json().items[0].status, 'updated', 'the same content sent again is written again when its scrubbed copies are old');
  const after = (await rt.db.query<{ scrub_version: number }>('SELECT scrub_version FROM candidates WHERE id = $1', [id])).rows[0]!;
  assert.equal(after.scrub_version, SCRUB_RULES_VERSION);
  assert.equal((await upsert([candidate('old-sean', SEAN)])).json().items[0].status, 'unchanged');
});

test('a stale row erased between its view and its raw read drops out: no agent gets the copy older rules made', async () => {
  const id = (await upsert([candidate('erased-mid-read', SEAN)])).json().items[0].id;
  const orgId = await orgOf(id);
  await rt.db.query(`UPDATE candidates SET scrub_version = 0, scrubbed_text = 'Reach me on 087 123 4567.' WHERE id = $1`, [id]);
  // The erasure lands between the two statements of a view.
  const erasing: Database = {
    ...rt.db,
    query: async (text, values) => {
      if (/SELECT id, name, email, phone, headline, location, skills, resume FROM candidates/.test(text)) await rt.db.query('DELETE FROM candidates WHERE id = $1', [id]);
      return rt.db.query(text, values);
    },
  };
  assert.deepEqual(await createCandidateStore(erasing).views(orgId, [id]), []);
});

test('a row whose content another release rewrote without its scrubbed copies counts as stale, everywhere', async () => {
  const id = (await upsert([candidate('prev-release', { location: 'Berlin, DE', skills: ['Go'] })])).json().items[0].id;
  const orgId = await orgOf(id);
  const store = createCandidateStore(rt.db);
  // What a process of the release before migration 010 writes: raw fields and content_hash, no scrubbed copies, no
  // version change (the row stays at the current rules' version).
  await rt.db.query(
    `UPDATE candidates SET location = 'Reach me: pat.doe@example.org', skills = '{Rust}', content_hash = 'written-by-the-previous-release'
     WHERE id = $1`,
    [id],
  );
  const [view] = await store.views(orgId, [id]);
  assert.equal(view!.location, 'Reach me: [EMAIL]', 'agents read the current content, scrubbed');
  assert.deepEqual(view!.skills, ['Rust']);
  assert.equal((await store.existingHashes(orgId, ['prev-release'])).get('prev-release')!.hash, '', 'sent again, it is written again');
  assert.equal(await rescrubCandidates(rt.db), 1);
  const row = (await rt.db.query<{ scrubbed_location: string; scrubbed_from_hash: string }>('SELECT scrubbed_location, scrubbed_from_hash FROM candidates WHERE id = $1', [id])).rows[0]!;
  assert.deepEqual(row, { scrubbed_location: 'Reach me: [EMAIL]', scrubbed_from_hash: 'written-by-the-previous-release' });
  assert.equal(await rescrubCandidates(rt.db), 0);
});

test('a vector the previous release embedded from raw skills is marked for re-embedding, though the scrubbed skills read the same', async () => {
  const id = (await upsert([candidate('prev-vector', { skills: ['Go'] })])).json().items[0].id;
  // That release embeds from the raw skills and writes the vector under its new content hash.
  await rt.db.query(`UPDATE candidates SET skills = '{Go,jane@x.io}', content_hash = 'prev-release-hash' WHERE id = $1`, [id]);
  await rt.db.query(`UPDATE candidate_embeddings SET content_hash = 'prev-release-hash' WHERE candidate_id = $1`, [id]);
  assert.equal(await rescrubCandidates(rt.db), 1);
  const row = (await rt.db.query<{ scrubbed_skills: string[] }>('SELECT scrubbed_skills FROM candidates WHERE id = $1', [id])).rows[0]!;
  assert.deepEqual(row.scrubbed_skills, ['Go']);
  const vector = (await rt.db.query<{ content_hash: string }>('SELECT content_hash FROM candidate_embeddings WHERE candidate_id = $1', [id])).rows;
  assert.deepEqual(vector, [{ content_hash: '' }], 'its vector carried the email: stale for reembed');
});

test('the backfill keeps a vector whose text it did not change, and processes running it together share the rows', async () => {
  const items = (await upsert(Array.from({ length: 9 }, (_, i) => candidate(`bf-${i}`, { skills: ['Go', 'Kubernetes'], location: 'Lyon, FR' })))).json().items;
  const ids: string[] = items.map((it: { id: string }) => it.id);
  const hashesBefore = (await rt.db.query<{ content_hash: string }>('SELECT content_hash FROM candidate_embeddings WHERE candidate_id = ANY($1::uuid[]) ORDER BY candidate_id', [ids])).rows;
  // As migration 010 leaves a row: its vector was embedded from the raw skills, which had nothing to scrub.
  await rt.db.query(`UPDATE candidates SET scrubbed_location = NULL, scrubbed_skills = '{}', scrub_version = 0, scrubbed_from_hash = NULL WHERE id = ANY($1::uuid[])`, [ids]);
  const [a, b] = await Promise.all([rescrubCandidates(rt.db, { batch: 2 }), rescrubCandidates(rt.db, { batch: 2 })]);
  assert.equal(a + b, ids.length, `each row once: ${a} + ${b}`);
  const hashesAfter = (await rt.db.query<{ content_hash: string }>('SELECT content_hash FROM candidate_embeddings WHERE candidate_id = ANY($1::uuid[]) ORDER BY candidate_id', [ids])).rows;
  assert.deepEqual(hashesAfter, hashesBefore, 'no vector is marked for re-embedding');
  const skills = (await rt.db.query<{ scrubbed_skills: string[] }>('SELECT DISTINCT scrubbed_skills FROM candidates WHERE id = ANY($1::uuid[])', [ids])).rows;
  assert.deepEqual(skills, [{ scrubbed_skills: ['Go', 'Kubernetes'] }]);
});

test("a row an older release wrote after this process's backfill is left out of the expander's vocabulary until a pass does it", async () => {
  const [id] = (await upsert([candidate('late-skills', { skills: ['Erlang'] }), candidate('current-skills', { skills: ['Elixir'] })])).json().items.map((i: { id: string }) => i.id);
  const orgId = await orgOf(id);
  // As older rules could leave a copy, written by a process of the previous release once this one had caught up.
  await rt.db.query(`UPDATE candidates SET scrubbed_skills = '{Erlang,sam.late@example.org}', scrub_version = $2 WHERE id = $1`, [id, SCRUB_RULES_VERSION - 1]);
  const skills = (await createCandidateStore(rt.db).skillVocabulary(orgId)).map((v) => v.skill);
  const row = await rt.db.query<{ scrub_version: number }>('SELECT scrub_version FROM candidates WHERE id = $1', [id]);
  assert.equal(row.rows[0]!.scrub_version, SCRUB_RULES_VERSION - 1, 'the runtime had caught up: the read did not rewrite the row');
  assert.ok(!skills.includes('sam.late@example.org'), `the stale copy's skills are not offered: ${skills.join(', ')}`);
  assert.ok(skills.includes('Elixir'), 'the current rows are');
  await rescrubCandidates(rt.db);
});

test('a process looks for stale rows again after its start: a row an older release writes later is done by the next pass', async () => {
  const id = (await upsert([candidate('late-old', { location: 'Lyon, FR', skills: ['Go'] })])).json().items[0].id;
  // As a process of the release before migration 010 leaves a row.
  const makeOld = () => rt.db.query(`UPDATE candidates SET scrubbed_location = NULL, scrubbed_skills = '{}', scrub_version = 0 WHERE id = $1`, [id]);
  const current = async () => {
    const r = await rt.db.query<{ scrub_version: number; scrubbed_location: string | null }>('SELECT scrub_version, scrubbed_location FROM candidates WHERE id = $1', [id]);
    return r.rows[0]!.scrub_version === SCRUB_RULES_VERSION && r.rows[0];
  };
  const logged: Array<{ rows?: number }> = [];
  const logger = { info: (o: { rows?: number }) => logged.push(o), warn: (o: unknown) => assert.fail(`a pass failed: ${JSON.stringify(o)}`) };
  await makeOld();
  const rescrubber = startRescrubber(rt.db, { intervalMs: 25, logger: logger as unknown as Pick<Logger, 'info' | 'warn'> });
  try {
    await waitFor(async () => logged.length === 1, 10_000, 'the pass at start');
    assert.ok(await current(), 'the pass at start did the row');
    // Written after that pass: only a later one can do it.
    await makeOld();
    const row = await waitFor(current, 10_000, 'the row done by a later pass');
    assert.equal(row.scrubbed_location, 'Lyon, FR');
  } finally {
    await rescrubber.stop();
  }
  assert.deepEqual(logged, [{ rows: 1 }, { rows: 1 }]);
  // Stopped: a row made stale now stays as it is.
  await makeOld();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await current(), false);
  assert.equal(await rescrubCandidates(rt.db), 1);
});
