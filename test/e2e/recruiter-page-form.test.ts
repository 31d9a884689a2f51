// The recruiter page's role form and run controls in headless Chromium against the real service (API only, so a
// run stays queued): bad input comes back as the service's problem document, shown field by field; one submission
// starts at most one run however often it is sent (double click, retry after a network failure, a second press
// after a fast 202); a run is cancelled from the keyboard (202), or found finished (409). Skipped without Chromium.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { servePageToChromium, SKIP, stubApi, watchedPage, type Browser } from '../support/browser.js';
import { GO_ROLE } from '../support/fixtures.js';
import { waitFor, type TestRuntime } from '../support/runtime.js';

// waitForFunction's predicates run in the page (the CSP forbids evaluating strings); this declares what they touch.
declare const document: { getElementById(id: string): { textContent: string | null } | null };
declare const window: { location: { hash: string } };

let rt: TestRuntime;
let baseUrl: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (SKIP) return;
  ({ rt, baseUrl, browser, close } = await servePageToChromium());
});

after(() => close?.());

async function runCount(): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/matching-runs?limit=100`, { headers: rt.auth() });
  return ((await res.json()) as { items: unknown[] }).items.length;
}

async function openWithKey(): Promise<{ page: Page; posts: Request[] }> {
  const { page } = await watchedPage(browser.context);
  const posts: Request[] = [];
  page.on('request', (r) => { if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/matching-runs') posts.push(r); });
  await page.goto(`${baseUrl}/`);
  await page.fill('#api-key', rt.apiKey);
  await page.click('#save-key');
  return { page, posts };
}

async function fillRole(page: Page, title = GO_ROLE.title): Promise<void> {
  await page.fill('#role-title', title);
  await page.fill('#role-description', GO_ROLE.description);
  await page.fill('#must-have', GO_ROLE.mustHaveSkills.join(', '));
}

const idempotencyKeys = (posts: Request[]) => posts.map((r) => r.headers()['idempotency-key']);

test('bad input is answered by the service\'s problem document, shown next to each field, linked and focusable; no run is made', { skip: SKIP, timeout: 60_000 }, async () => {
  const before = await runCount();
  const { page, posts } = await openWithKey();
  // What the browser cannot know: a blank title (spaces pass "required"), a description over the service's
  // 50,000 characters (pasted whole: the page must not cut it short and submit the rest) and an over-long skill.
  await page.fill('#role-title', '   ');
  await page.fill('#role-description', 'x'.repeat(50_001));
  await page.fill('#must-have', `Go, ${'k'.repeat(101)}`);
  await page.press('#role-title', 'Enter'); // the keyboard submits the form
  await page.waitForSelector('#form-errors:not([hidden])');
  assert.equal(posts.length, 1);

  for (const id of ['role-title', 'role-description', 'must-have']) {
    assert.equal(await page.getAttribute(`#${id}`, 'aria-invalid'), 'true', `${id} is marked invalid`);
    assert.ok(((await page.getAttribute(`#${id}`, 'aria-describedby')) ?? '').split(' ').includes(`${id}-error`), `${id} is described by its error`);
    assert.ok(((await page.textContent(`#${id}-error`)) ?? '').length > 0, `${id} has its message`);
  }
  assert.equal(await page.evaluate('document.activeElement.id'), 'form-errors', 'the summary takes focus');
  // The title is sent as typed, so the service's own words say what is wrong; a list item is named.
  assert.match((await page.textContent('#role-title-error')) ?? '', /whitespace/);
  assert.match((await page.textContent('#must-have-error')) ?? '', /^skill 2 \(“k{30}…”\): /);
  const links = await page.$$eval('#form-errors a', (as: Array<{ textContent: string | null }>) => as.map((a) => a.textContent ?? ''));
  assert.equal(links.length, 3, links.join(' | '));
  assert.ok(links.some((l) => l.startsWith('Description: ')), links.join(' | '));
  await page.click('#form-errors a[href="#role-description"]');
  assert.equal(await page.evaluate('document.activeElement.id'), 'role-description', 'a summary link focuses its field');
  assert.equal(await page.evaluate('window.location.hash'), '', 'and leaves the address alone');
  assert.equal(await runCount(), before, 'nothing was written');

  // Corrected and sent again: the marks go and the run starts.
  await page.fill('#role-title', GO_ROLE.title);
  await page.fill('#role-description', GO_ROLE.description);
  await page.fill('#must-have', 'Go');
  await page.click('#submit-run');
  await page.waitForFunction(() => /^#run=./.test(window.location.hash));
  assert.equal(await page.isHidden('#form-errors'), true);
  assert.equal(await page.locator('#role-form [aria-invalid]').count(), 0);
  assert.equal(await runCount(), before + 1);
  // Remote work left "Not stated" is left out of the role (false would read as on-site only).
  assert.equal('remote' in (posts[1]!.postDataJSON() as { role: object }).role, false);
  await page.close();
});

test('a second press while the run it started is unfinished re-sends the same Idempotency-Key and shows that run; a changed role is a new run', { skip: SKIP, timeout: 60_000 }, async () => {
  const before = await runCount();
  const { page, posts } = await openWithKey();
  await fillRole(page, 'Idempotent role');
  await page.click('#submit-run');
  await page.waitForFunction(() => /^#run=./.test(window.location.hash));
  const first = await page.evaluate('window.location.hash');

  // The second click of a double click, landing after the 202 (a local service answers in milliseconds).
  await page.click('#submit-run');
  await page.waitForFunction(() => (document.getElementById('run-message')?.textContent ?? '').startsWith('This role was already submitted'));
  assert.equal(posts.length, 2);
  const [k1, k2] = idempotencyKeys(posts);
  assert.ok(k1 && k1 === k2, `the same key both times: ${k1} / ${k2}`);
  assert.equal(await page.evaluate('window.location.hash'), first, 'the same run is shown');
  assert.equal(await runCount(), before + 1, 'one run, not two');

  await page.fill('#role-title', 'Idempotent role, edited');
  await page.selectOption('#remote', 'false');
  await page.click('#submit-run');
  await page.waitForFunction((prev) => window.location.hash !== prev, first);
  assert.equal(posts.length, 3);
  assert.notEqual(idempotencyKeys(posts)[2], k1, 'a different role gets its own key');
  assert.equal((posts[2]!.postDataJSON() as { role: { remote?: boolean } }).role.remote, false, '"On-site only" is remote: false');
  assert.equal(await runCount(), before + 2);
  await page.close();
});

test('a double click sends one request, and a retry after a network failure re-sends the same key: one run', { skip: SKIP, timeout: 60_000 }, async () => {
  const before = await runCount();
  const { page, posts } = await openWithKey();
  await fillRole(page, 'Network-failure role');
  // The first POST's connection fails after it reached the service (the run exists, the answer is lost).
  let failNext = true;
  let releaseHeld: () => void = () => {};
  const held = new Promise<void>((resolve) => { releaseHeld = resolve; });
  await page.route('**/v1/matching-runs', async (route) => {
    if (route.request().method() !== 'POST') return route.fallback();
    if (failNext) {
      failNext = false;
      await route.fetch();
      return route.abort('connectionreset');
    }
    await held;
    return route.fallback();
  });
  await page.click('#submit-run');
  await page.waitForSelector('#form-errors:not([hidden])');
  assert.match((await page.textContent('#form-errors')) ?? '', /Could not reach the service.*reuses its idempotency key/);
  assert.equal(await runCount(), before + 1, 'the lost request did start a run');

  await page.dblclick('#submit-run');
  await waitFor(async () => posts.length >= 2, 10_000, 'the retry');
  releaseHeld();
  await page.waitForFunction(() => /^#run=./.test(window.location.hash));
  const [k1, k2] = idempotencyKeys(posts);
  assert.ok(k1 && k1 === k2, `the retry re-sent the key: ${k1} / ${k2}`);
  assert.equal(posts.length, 2, 'the double click sent one request');
  assert.equal(await runCount(), before + 1, 'still one run');
  await page.close();
});

test('once the run it started has finished, the same role pressed again is a new run with a new key', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const ids: string[] = [];
  const calls = await stubApi(page, (call) => {
    if (call.method === 'POST') {
      ids.push(randomUUID());
      return { status: 202, body: { id: ids.at(-1), status: 'queued' } };
    }
    if (call.path.startsWith('/v1/matching-runs?')) return { status: 200, body: { items: [], nextCursor: null } };
    if (call.path.includes('/events')) return { status: 200, body: { items: [], nextCursor: null } };
    return { status: 200, headers: { etag: '"1"' }, body: { id: ids.at(-1), status: 'succeeded', shortlist: [] } };
  });
  await page.goto(`${baseUrl}/`);
  await page.fill('#api-key', 'tm_any_key');
  await fillRole(page);
  await page.click('#submit-run');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'succeeded');
  // The page lists recent runs after the 202 and again when the poller is done with the finished run.
  await waitFor(async () => calls.filter((c) => c.path.startsWith('/v1/matching-runs?')).length >= 2, 10_000, 'the finished run');
  await page.click('#submit-run');
  await page.waitForFunction((first) => !window.location.hash.endsWith(first), ids[0]!);
  const keys = calls.filter((c) => c.method === 'POST').map((c) => c.headers['idempotency-key']);
  assert.equal(keys.length, 2);
  assert.notEqual(keys[0], keys[1], 'a finished run is not answered again: the recruiter asked for a new one');
  await page.close();
});

test('the recruiter cancels a run from the keyboard (202): it ends cancelled and keyboard focus is not stranded', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await openWithKey();
  await fillRole(page, 'Role to cancel');
  await page.click('#submit-run');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'queued');
  const cancels: string[] = [];
  page.on('request', (r) => { if (r.method() === 'POST' && r.url().endsWith('/cancel')) cancels.push(r.url()); });
  await page.focus('#cancel-run');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'cancelled');
  assert.equal(await page.textContent('#run-message'), 'Cancellation requested.');
  assert.equal(await page.isHidden('#cancel-run'), true, 'a cancelled run offers no cancel button');
  assert.equal(await page.getAttribute('#stop-reason', 'data-reason'), 'cancelled');
  assert.equal(await page.evaluate('document.activeElement.id'), 'run-heading', 'focus moves off the hidden button');
  assert.equal(cancels.length, 1);
  await page.close();
});

test('cancelling a run that has just finished (409) says so, not as an error, and shows the finished run', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page } = await watchedPage(browser.context);
  const id = randomUUID();
  let finished = false;
  await stubApi(page, (call) => {
    if (call.path === `/v1/matching-runs/${id}/cancel`) {
      finished = true;
      return { status: 409, body: { type: 'about:blank', title: 'Conflict', status: 409, detail: 'The run has already finished (succeeded); only a queued or running run can be cancelled.' } };
    }
    if (call.path === `/v1/matching-runs/${id}`) {
      const status = finished ? 'succeeded' : 'running';
      return { status: 200, headers: { etag: `"${status}"`, 'retry-after': '60' }, body: { id, status, shortlist: [] } };
    }
    return { status: 200, body: { items: [], nextCursor: null } };
  });
  await page.goto(`${baseUrl}/#run=${id}`);
  await page.fill('#api-key', 'tm_any_key');
  await page.click('#save-key');
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'running');
  await page.click('#cancel-run');
  // The poller was told to look at once, not after the 60 s its last answer asked for.
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'succeeded');
  assert.equal(await page.textContent('#run-message'), 'The run had already finished.');
  assert.equal(await page.locator('#run-message.is-error').count(), 0);
  await page.close();
});
