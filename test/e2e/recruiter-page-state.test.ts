// The recruiter page's state across runs, in headless Chromium against a stubbed API: a failed cancel stays on
// screen, another run opened shows none of the previous one's facts, the same role pressed again after its run
// finished unobserved is a new run, a key that cannot be sent is said to be the key's fault, text from outside cannot
// reverse the page's own labels, and a change or removal of the key leaves nothing the previous key read on screen.
// Skipped without Chromium.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { servePageToChromium, SKIP, stubApi, watchedPage, type ApiAnswer, type ApiCall, type Browser } from '../support/browser.js';

declare const document: { getElementById(id: string): { textContent: string | null; hidden?: boolean } | null };

let baseUrl: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;
before(async () => { if (SKIP) return; ({ baseUrl, browser, close } = await servePageToChromium()); });
after(() => close?.());

const run = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id, roleId: randomUUID(), status, engine: 'heuristic', createdAt: '2026-01-01T00:00:00Z', startedAt: null, finishedAt: null,
  progress: { iteration: 1, maxIterations: 3, candidatesSeen: 30, candidatesScored: 15, strongCandidates: 2 },
  stop: null, usage: { llmCalls: 7, promptTokens: 1, completionTokens: 1, totalTokens: 2, costUsd: 0.5 }, shortlist: [], error: null, ...extra,
});
const empty = { status: 200, body: { items: [], nextCursor: null } };

test('a failed cancel (503) stays on screen while the run goes on, and goes once the run has ended', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const id = randomUUID();
  let status = 'running';
  await stubApi(page, (call): ApiAnswer => {
    if (call.path === `/v1/matching-runs/${id}/cancel`) return { status: 503, headers: { 'retry-after': '5' }, body: { title: 'Database timeout', status: 503, detail: 'retry later' } };
    if (call.path === `/v1/matching-runs/${id}`) return { status: 200, headers: { etag: `"${status}"`, 'retry-after': '1' }, body: run(id, status) };
    return empty;
  });
  await page.goto(`${baseUrl}/#run=${id}`);
  await page.fill('#api-key', 'tm_any_key');
  await page.click('#save-key');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'running');
  await page.click('#cancel-run');
  await page.waitForTimeout(1500);
  assert.match(await page.textContent('#run-message') ?? '', /Database timeout/);
  status = 'succeeded';
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'succeeded');
  await page.waitForFunction(() => document.getElementById('run-message')?.textContent === '');
  await page.close();
});

test('opening another run that cannot be read does not keep the previous run\'s facts under the new id', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const a = randomUUID();
  const b = randomUUID();
  await stubApi(page, (call): ApiAnswer => {
    if (call.path === `/v1/matching-runs/${a}`) return { status: 200, headers: { etag: '"a"' }, body: run(a, 'failed', { stop: { reason: 'error', iteration: 1, reasoning: 'RUN A REASONING' }, error: { title: 'RUN A ERROR', detail: '' } }) };
    if (call.path === `/v1/matching-runs/${b}`) return { status: 404, body: { title: 'Not found', status: 404, detail: 'Matching run does not exist.' } };
    return empty;
  });
  await page.goto(`${baseUrl}/#run=${a}`);
  await page.fill('#api-key', 'tm_any_key');
  await page.click('#save-key');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'failed');
  await page.evaluate(`location.hash = 'run=${b}'`);
  await page.waitForFunction(() => /Updates stopped/.test(document.getElementById('run-message')?.textContent ?? ''));
  const body = await page.innerText('#run-body');
  assert.doesNotMatch(body, /RUN A REASONING|RUN A ERROR/, 'run A\'s stop reason and error are not shown for run B');
  await page.close();
});

test('the same role pressed again after its run finished while another run was open is a new run (new key)', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const other = randomUUID();
  const keys: string[] = [];
  const runs = new Map<string, string>();
  await stubApi(page, (call): ApiAnswer => {
    if (call.method === 'POST' && call.path === '/v1/matching-runs') {
      const k = call.headers['idempotency-key']!;
      keys.push(k);
      const replay = runs.has(k); // the server answers a replay with the run as it is now: finished
      if (!replay) runs.set(k, randomUUID());
      return { status: 202, headers: { 'retry-after': '60' }, body: run(runs.get(k)!, replay ? 'succeeded' : 'queued') };
    }
    if (call.path === `/v1/matching-runs/${other}`) return { status: 200, body: run(other, 'succeeded') };
    const m = /^\/v1\/matching-runs\/([0-9a-f-]{36})$/.exec(call.path);
    if (m) return { status: 200, headers: { 'retry-after': '60', etag: '"q"' }, body: run(m[1]!, 'queued') };
    return empty;
  });
  await page.goto(`${baseUrl}/`);
  await page.fill('#api-key', 'tm_any_key');
  await page.click('#save-key');
  await page.fill('#role-title', 'Same role');
  await page.fill('#role-description', 'Same description');
  await page.click('#submit-run');
  await page.waitForFunction(() => /^#run=./.test((globalThis as unknown as { location: { hash: string } }).location.hash));
  await page.evaluate(`location.hash = 'run=${other}'`); // the recruiter opens a recent run; the first run then finishes unobserved
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'succeeded');
  await page.click('#submit-run');
  await page.waitForTimeout(800);
  assert.notEqual(keys.at(-1), keys[0], 'a new run, not a replay of the finished one');
  assert.doesNotMatch(await page.textContent('#run-message') ?? '', /already submitted/);
  await page.close();
});

test('a key that cannot be sent as a header (pasted zero-width space) is reported as a key problem, not "could not reach the service"', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  await page.goto(`${baseUrl}/`);
  await page.fill('#api-key', 'tm_valid_looking_key\u200B');
  await page.click('#save-key');
  await page.waitForTimeout(800);
  assert.doesNotMatch(await page.textContent('#runs-status') ?? '', /Could not reach the service/);
  assert.match(await page.textContent('#key-status') ?? '', /characters an API key cannot have/);
  assert.equal(await page.getAttribute('#api-key', 'aria-invalid'), 'true');
  await page.close();
});

test('an id or a quote with a right-to-left override is isolated: the page’s own words after it read as written', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const id = randomUUID();
  const entry = {
    candidateId: randomUUID(), externalId: 'ats-\u202E9911', name: 'Jane \u202EEor', iteration: 1, totalScore: 70, retrievalScore: 0.1,
    subscores: { hardSkills: 20, domain: 10, seniority: 10, impact: 10, logistics: 10, trajectory: 10 }, rationale: 'ok \u202E',
    evidence: [{ subscore: 'hardSkills', quote: 'Go \u202E', verified: false }],
  };
  await stubApi(page, (call) => (call.path === `/v1/matching-runs/${id}` ? { status: 200, headers: { etag: '"s"' }, body: run(id, 'succeeded', { shortlist: [entry] }) } : empty));
  await page.goto(`${baseUrl}/#run=${id}`);
  await page.fill('#api-key', 'tm_any_key');
  await page.click('#save-key');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'succeeded');
  // Each outside string sits in an element that isolates it (<bdi>, or dir="auto", which HTML isolates).
  const isolated = await page.evaluate(`[...document.querySelectorAll('#shortlist *')]
    .filter((n) => [...n.childNodes].some((c) => c.nodeType === 3 && c.textContent.includes('\u202E')))
    .every((n) => n.tagName === 'BDI' || n.getAttribute('dir') === 'auto')`);
  assert.equal(isolated, true);
  await page.close();
});

// Two organisations' keys against one stubbed API: organisation A's key reads its run, its events and its recent runs;
// B's key reads none of them (404, an empty list), as the service answers another tenant's run. A role posted with
// B's key starts B's own run, which stays queued.
const KEY_A = 'tm_org_a_key';
const KEY_B = 'tm_org_b_key';
const candidateOfA = {
  candidateId: randomUUID(), externalId: 'ats-org-a-1', name: 'ORG A CANDIDATE', iteration: 1, totalScore: 88, retrievalScore: 0.9,
  subscores: { hardSkills: 30, domain: 15, seniority: 15, impact: 10, logistics: 8, trajectory: 10 }, rationale: 'ORG A RATIONALE',
  evidence: [{ subscore: 'hardSkills', quote: 'ORG A QUOTE', verified: true }],
};
function twoTenants(a: string, status: () => string): (call: ApiCall) => ApiAnswer {
  const notFound = { status: 404, body: { title: 'Not found', status: 404, detail: 'Matching run does not exist.' } };
  const b = randomUUID();
  return (call): ApiAnswer => {
    const isA = call.headers.authorization === `Bearer ${KEY_A}`;
    if (call.method === 'POST' && call.path === '/v1/matching-runs') return { status: 202, headers: { 'retry-after': '1' }, body: isA ? run(a, status()) : run(b, 'queued') };
    if (call.path === `/v1/matching-runs/${b}`) return isA ? notFound : { status: 200, headers: { etag: '"b"', 'retry-after': '60' }, body: run(b, 'queued') };
    if (call.path === `/v1/matching-runs/${a}`) {
      if (!isA) return notFound;
      const extra = { shortlist: [candidateOfA], stop: status() === 'succeeded' ? { reason: 'target_reached', iteration: 1, reasoning: 'ORG A REASONING' } : null };
      return { status: 200, headers: { etag: `"${status()}"`, 'retry-after': '1' }, body: run(a, status(), extra) };
    }
    if (call.path.startsWith(`/v1/matching-runs/${a}/events`)) {
      if (!isA) return notFound;
      const items = [{ seq: 1, type: 'iteration_started', at: '2026-01-01T00:00:01Z', data: { note: 'ORG A EVENT' } }];
      return { status: 200, body: { items: call.path.includes('after=') ? [] : items, nextCursor: null } };
    }
    if (call.path.startsWith('/v1/matching-runs?')) return isA ? { status: 200, body: { items: [run(a, status())], nextCursor: null } } : empty;
    return empty;
  };
}
async function saveKey(page: Page, key: string): Promise<void> {
  await page.fill('#api-key', key);
  await page.click('#save-key');
}
const hash = (page: Page) => page.evaluate('location.hash') as Promise<string>;

/** Nothing organisation A's key read is left in the run view or the recent runs, shown or hidden, and no #run= names A's run. */
async function assertNothingOfA(page: Page, a: string): Promise<void> {
  assert.doesNotMatch(await page.textContent('#run-view') ?? '', /ORG A|ats-org-a/, 'no shortlist, stop reason or event of A in the run view');
  assert.doesNotMatch(await page.textContent('#run-view') ?? '', new RegExp(a), 'nor A\'s run id');
  assert.equal(await page.isHidden('#run-body'), true, 'the run view is closed');
  assert.equal(await page.isVisible('#run-empty'), true, 'and says how to open a run');
  assert.equal(await page.locator(`#recent-runs a[data-run-id="${a}"]`).count(), 0, 'A\'s run is not among the recent runs');
  assert.equal(await hash(page), '', 'the address names no run');
}

test('another organisation\'s key closes a finished run read with the previous key: shortlist, timeline, address and recent runs go', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, errors } = await watchedPage(browser.context);
  const a = randomUUID();
  const calls = await stubApi(page, twoTenants(a, () => 'succeeded'));
  await page.goto(`${baseUrl}/#run=${a}`);
  await saveKey(page, KEY_A);
  await page.waitForFunction(() => /ORG A EVENT/.test(document.getElementById('events')?.textContent ?? ''));
  assert.match(await page.textContent('#shortlist') ?? '', /ORG A CANDIDATE/);
  await page.waitForSelector(`#recent-runs a[data-run-id="${a}"]`);

  await saveKey(page, KEY_B);
  await page.waitForFunction(() => document.getElementById('run-body')?.hidden === true);
  await page.waitForTimeout(1500); // a poll would have come by now
  await assertNothingOfA(page, a);
  assert.equal(await page.textContent('#key-status'), 'Key saved for this tab; the run opened with the previous key was closed.', 'the key\'s live region says why the run went');
  assert.deepEqual(calls.filter((c) => c.path.startsWith(`/v1/matching-runs/${a}`) && c.headers.authorization === `Bearer ${KEY_B}`), [], 'B\'s key is not sent for A\'s run');
  assert.deepEqual(errors, []);
  await page.close();
});

test('another organisation\'s key closes a run still in flight, and the same role is then a new submission (new Idempotency-Key)', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, errors } = await watchedPage(browser.context);
  const a = randomUUID();
  const calls = await stubApi(page, twoTenants(a, () => 'running'));
  await page.goto(`${baseUrl}/`);
  await saveKey(page, KEY_A);
  await page.fill('#role-title', 'Same role');
  await page.fill('#role-description', 'Same description');
  await page.click('#submit-run');
  await page.waitForFunction(() => /ORG A CANDIDATE/.test(document.getElementById('shortlist')?.textContent ?? ''));
  assert.equal(await hash(page), `#run=${a}`);

  await saveKey(page, KEY_B);
  await page.waitForTimeout(1500); // the open run polls every second
  await assertNothingOfA(page, a);
  assert.doesNotMatch(await page.textContent('#run-message') ?? '', /Not found|Updates stopped/, 'no poll with B\'s key reported A\'s run missing');
  assert.deepEqual(calls.filter((c) => c.path.startsWith(`/v1/matching-runs/${a}`) && c.headers.authorization === `Bearer ${KEY_B}`), [], 'B\'s key is not sent for A\'s run');

  await page.click('#submit-run');
  await page.waitForFunction(() => /^#run=./.test((globalThis as unknown as { location: { hash: string } }).location.hash));
  const posts = calls.filter((c) => c.method === 'POST' && c.path === '/v1/matching-runs');
  assert.equal(posts.length, 2);
  assert.notEqual(posts[1]!.headers['idempotency-key'], posts[0]!.headers['idempotency-key'], 'A\'s submission is not replayed under B');
  assert.deepEqual(errors, []);
  await page.close();
});

test('"Forget key" closes the open run: nothing it read stays on screen or in the address', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, errors } = await watchedPage(browser.context);
  const a = randomUUID();
  await stubApi(page, twoTenants(a, () => 'succeeded'));
  await page.goto(`${baseUrl}/#run=${a}`);
  await saveKey(page, KEY_A);
  await page.waitForFunction(() => /ORG A EVENT/.test(document.getElementById('events')?.textContent ?? ''));
  await page.waitForSelector(`#recent-runs a[data-run-id="${a}"]`);

  await page.click('#forget-key');
  await assertNothingOfA(page, a);
  assert.equal(await page.textContent('#key-status'), 'Key forgotten; the open run was closed.');
  assert.equal(await page.evaluate('document.activeElement.id'), 'api-key', 'focus goes to the key field');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the same key saved again keeps the open run; a run read with a key since rejected (401) closes when another key is saved', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, errors } = await watchedPage(browser.context);
  const a = randomUUID();
  let revoked = false;
  const tenants = twoTenants(a, () => 'running');
  await stubApi(page, (call): ApiAnswer => (revoked && call.headers.authorization === `Bearer ${KEY_A}`
    ? { status: 401, body: { title: 'Unauthorized', status: 401, detail: 'Invalid API key.' } }
    : tenants(call)));
  await page.goto(`${baseUrl}/#run=${a}`);
  await saveKey(page, KEY_A);
  await page.waitForFunction(() => /ORG A CANDIDATE/.test(document.getElementById('shortlist')?.textContent ?? ''));
  await saveKey(page, KEY_A);
  await page.waitForTimeout(300);
  assert.match(await page.textContent('#shortlist') ?? '', /ORG A CANDIDATE/, 'an unchanged key keeps the run');
  assert.equal(await hash(page), `#run=${a}`);

  revoked = true;
  await page.waitForFunction(() => (document.getElementById('key-status')?.textContent ?? '').includes('not accepted'));
  await saveKey(page, KEY_B);
  await page.waitForTimeout(1500);
  await assertNothingOfA(page, a);
  assert.deepEqual(errors.filter((e) => !/401/.test(e)), []);
  await page.close();
});

test('answers to requests sent with the previous key are dropped: its recent runs and the run it was starting are not shown under the new key', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, errors } = await watchedPage(browser.context);
  const a = randomUUID();
  const tenants = twoTenants(a, () => 'running');
  const held: Array<() => void> = [];
  const hold = (answer: ApiAnswer) => new Promise<ApiAnswer>((resolve) => held.push(() => resolve(answer)));
  let holdA = false;
  await stubApi(page, (call) => (holdA && call.headers.authorization === `Bearer ${KEY_A}` ? hold(tenants(call)) : tenants(call)));
  await page.goto(`${baseUrl}/`);
  await saveKey(page, KEY_A);
  await page.waitForFunction(() => document.getElementById('runs-status')?.textContent === '');
  holdA = true;
  await page.click('#refresh-runs'); // A's recent runs, answered only once B's key is saved
  await page.fill('#role-title', 'A role');
  await page.fill('#role-description', 'A description');
  await page.click('#submit-run'); // A's new run, likewise
  await page.waitForFunction(() => (document.getElementById('submit-run')?.textContent ?? '') === 'Starting…');
  assert.equal(held.length, 2);

  holdA = false;
  await saveKey(page, KEY_B);
  await page.waitForFunction(() => document.getElementById('runs-status')?.textContent === 'No runs yet.');
  for (const release of held) release();
  await page.waitForFunction(() => document.getElementById('submit-run')?.textContent === 'Start run');
  await page.waitForTimeout(500);
  await assertNothingOfA(page, a);
  assert.equal(await page.textContent('#runs-status'), 'No runs yet.');
  assert.deepEqual(errors, []);
  await page.close();
});

test('"Show more" pressed again while its page is on its way lists that page once', { skip: SKIP, timeout: 30_000 }, async () => {
  const page1 = Array.from({ length: 10 }, () => run(randomUUID(), 'succeeded'));
  const page2 = Array.from({ length: 3 }, () => run(randomUUID(), 'succeeded'));
  const { page } = await watchedPage(browser.context);
  const calls = await stubApi(page, async (call) => {
    if (!call.path.startsWith('/v1/matching-runs?')) return empty;
    if (!call.path.includes('cursor=')) return { status: 200, body: { items: page1, nextCursor: 'c2' } };
    await new Promise((r) => setTimeout(r, 800));
    return { status: 200, body: { items: page2, nextCursor: null } };
  });
  await page.goto(`${baseUrl}/`);
  await page.fill('#api-key', 'tm_any_key_0123456789');
  await page.click('#save-key');
  await page.waitForSelector('#more-runs:not([hidden])');
  await page.click('#more-runs');
  // While the page is on its way the button says it is disabled (aria-disabled): pressed anyway.
  assert.equal(await page.getAttribute('#more-runs', 'aria-disabled'), 'true');
  await page.click('#more-runs', { force: true });
  await page.waitForSelector('#more-runs', { state: 'hidden' });
  const ids = await page.$$eval('#recent-runs a[data-run-id]', (as: Array<{ dataset: { runId?: string } }>) => as.map((a) => a.dataset.runId));
  assert.equal(ids.length, 13, ids.join(' '));
  assert.equal(new Set(ids).size, 13, 'no run listed twice');
  assert.equal(calls.filter((c) => c.path.includes('cursor=c2')).length, 1, 'the second press sent nothing');
  await page.close();
});
