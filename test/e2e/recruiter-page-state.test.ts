// The recruiter page's state across runs, in headless Chromium against a stubbed API: a failed cancel stays on
// screen, another run opened shows none of the previous one's facts, the same role pressed again after its run
// finished unobserved is a new run, a key that cannot be sent is said to be the key's fault, and text from outside
// cannot reverse the page's own labels. Skipped without Chromium.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { servePageToChromium, SKIP, stubApi, watchedPage, type ApiAnswer, type Browser } from '../support/browser.js';

declare const document: { getElementById(id: string): { textContent: string | null } | null };

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
