// The recruiter page in headless Chromium, served by the real service with its real security headers (CSP):
// hostile text in every field the API can send is shown as text; the API key never reaches a URL; a rejected key
// is forgotten and the key section says so. Skipped when Chromium is not installed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertLocalOnly, servePageToChromium, SKIP, stubApi, watchedPage, type ApiCall, type ApiAnswer, type Browser } from '../support/browser.js';
import { GO_ROLE } from '../support/fixtures.js';
import type { TestRuntime } from '../support/runtime.js';

// Markup, script, an event handler, a frame and a javascript: URL, in one string.
const PAYLOAD = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script><b class="injected">b</b><iframe srcdoc="<p>x</p>"></iframe>';
const JS_URL = 'javascript:window.__xss=3';
const RUN_ID = randomUUID();

// waitForFunction's predicates run in the page, where the CSP forbids evaluating strings: they are functions, and
// this declaration describes the little of the DOM they touch (the project compiles without the DOM lib).
declare const document: { getElementById(id: string): { textContent: string | null } | null };

const AT = '2025-01-02T03:04:05.000Z';

const hostileRun = {
  id: RUN_ID, roleId: PAYLOAD, status: 'failed', engine: PAYLOAD,
  createdAt: AT, startedAt: PAYLOAD, finishedAt: AT,
  progress: { iteration: 1, maxIterations: 3, candidatesSeen: 10, candidatesScored: 2, strongCandidates: 1 },
  stop: { reason: PAYLOAD, iteration: 1, reasoning: PAYLOAD },
  usage: { llmCalls: 3, promptTokens: 10, completionTokens: 5, totalTokens: 15, costUsd: 0.01 },
  shortlist: [{
    rank: 1, candidateId: PAYLOAD, externalId: JS_URL, name: PAYLOAD, totalScore: 80,
    subscores: { hardSkills: 25, domain: 15, seniority: 12, impact: 12, logistics: 8, trajectory: 8 },
    rationale: PAYLOAD, evidence: [{ subscore: PAYLOAD, quote: PAYLOAD, verified: false }], iteration: 1,
  }],
  error: { title: PAYLOAD, detail: PAYLOAD },
};

function hostileApi(call: ApiCall): ApiAnswer {
  const path = call.path.split('?')[0]!;
  if (call.method === 'POST') {
    return {
      status: 400,
      body: {
        type: 'about:blank', title: PAYLOAD, status: 400, detail: PAYLOAD,
        errors: [
          { path: 'body.role.title', message: PAYLOAD },
          { path: PAYLOAD, message: PAYLOAD },
          { path: '__proto__', message: 'names no field' },
          { path: 'body.constructor', message: 'names no field either' },
        ],
      },
    };
  }
  if (path === '/v1/matching-runs') {
    return {
      status: 200,
      body: {
        items: [
          { ...hostileRun, id: JS_URL, status: PAYLOAD },
          { ...hostileRun, id: PAYLOAD },
          hostileRun,
        ],
        nextCursor: PAYLOAD,
      },
    };
  }
  if (path === `/v1/matching-runs/${RUN_ID}`) return { status: 200, headers: { etag: '"1"' }, body: hostileRun };
  if (path === `/v1/matching-runs/${RUN_ID}/events`) {
    return { status: 200, body: { items: [{ seq: 1, at: PAYLOAD, type: PAYLOAD, data: { [PAYLOAD]: PAYLOAD, list: [PAYLOAD, JS_URL] } }], nextCursor: null } };
  }
  if (path.startsWith('/v1/roles/')) return { status: 200, body: { id: PAYLOAD, title: PAYLOAD, description: PAYLOAD, mustHaveSkills: [], niceToHaveSkills: [], createdAt: AT } };
  return { status: 404, body: { type: 'about:blank', title: PAYLOAD, status: 404, detail: PAYLOAD } };
}

let rt: TestRuntime;
let baseUrl: string;
let browser: Browser;
let close: (() => Promise<void>) | undefined;

before(async () => {
  if (SKIP) return;
  ({ rt, baseUrl, browser, close } = await servePageToChromium());
});

after(() => close?.());

// Chromium reports every 4xx answer as a console error; anything else there (a CSP refusal above all) is a failure.
const unexpected = (errors: string[]) =>
  errors.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e));

/** Elements, attributes and links that only injected markup could have made, and whether any script ran. */
const INJECTION_PROBE = `(() => {
  const found = [];
  for (const el of document.querySelectorAll('body *')) {
    const tag = el.tagName.toLowerCase();
    if (['img', 'script', 'iframe', 'b', 'object', 'embed', 'svg'].includes(tag) || el.classList.contains('injected')) found.push(tag);
    for (const a of el.attributes) {
      if (a.name.startsWith('on')) found.push(tag + '[' + a.name + ']');
      if ((a.name === 'href' || a.name === 'src') && !a.value.startsWith('#')) found.push(tag + '[' + a.name + '=' + a.value + ']');
    }
  }
  return { found, xss: window.__xss ?? null };
})()`;

async function assertNoInjection(page: Page, where: string): Promise<void> {
  assert.deepEqual(await page.evaluate(INJECTION_PROBE), { found: [], xss: null }, `${where}: nothing injected, nothing ran`);
}

async function saveKey(page: Page, key: string): Promise<void> {
  await page.fill('#api-key', key);
  await page.click('#save-key');
}

test('hostile text in every field the API sends is shown as text: no markup, no script, no javascript: link, no CSP refusal', { skip: SKIP, timeout: 60_000 }, async () => {
  const { page, requests, errors } = await watchedPage(browser.context);
  const calls = await stubApi(page, hostileApi);
  await page.goto(`${baseUrl}/#run=${RUN_ID}`);
  await saveKey(page, 'tm_any_key');
  await page.waitForSelector('#events li.event');
  await page.waitForSelector('#recent-runs li:nth-child(3)');

  // Each hostile field is on the page, verbatim, as text.
  const text = async (selector: string) => (await page.textContent(selector)) ?? '';
  assert.ok((await text('#shortlist .candidate-name')).endsWith(PAYLOAD), 'candidate name');
  assert.ok((await text('#shortlist .candidate-meta')).startsWith(`${JS_URL} · `), 'external id');
  assert.equal(await text('#shortlist .rationale'), PAYLOAD, 'rationale');
  assert.equal(await text('#shortlist .evidence q'), PAYLOAD, 'evidence quote');
  assert.equal(await text('#shortlist .evidence-subscore'), PAYLOAD, 'evidence sub-score name');
  assert.equal(await text('#stop-reason .reasoning'), PAYLOAD, 'the reflector\'s reasoning');
  assert.equal(await text('#stop-reason .stop-code'), PAYLOAD, 'stop reason');
  assert.equal(await text('#run-error'), `Error${PAYLOAD}${PAYLOAD}`, 'run error title and detail');
  await page.waitForFunction((p) => (document.getElementById('run-meta')?.textContent ?? '').includes(`${p} (${p})`), PAYLOAD);
  assert.ok((await text('#run-meta')).includes(`Engine${PAYLOAD}Role${PAYLOAD} (${PAYLOAD})`), 'engine, role title and role id');
  assert.ok((await text('#events')).includes(PAYLOAD), 'event type and data');
  assert.ok((await text('#recent-runs')).includes(PAYLOAD), 'recent run status');
  assert.equal(await page.getAttribute('#recent-runs li:first-child a', 'href'), `#run=${encodeURIComponent(JS_URL)}`);
  await assertNoInjection(page, 'run view and recent runs');

  // A problem document answering the form: title, detail, paths and messages; paths naming Object members are no field.
  await page.fill('#role-title', 'Backend engineer');
  await page.fill('#role-description', 'Builds services.');
  await page.click('#submit-run');
  await page.waitForSelector('#form-errors:not([hidden])');
  const problem = await text('#form-errors');
  assert.ok(problem.startsWith(`The run was not started${PAYLOAD}${PAYLOAD}`), problem);
  assert.ok(problem.includes(`${PAYLOAD}: ${PAYLOAD}`), 'an unknown path is shown as text');
  assert.ok(problem.includes('__proto__: names no field') && problem.includes('body.constructor: names no field either'), problem);
  assert.equal(await text('#role-title-error'), PAYLOAD, 'the title\'s field error');
  await assertNoInjection(page, 'form problem');

  // A run id from the address bar is text too, and so is the 404 problem that answers it.
  await page.evaluate(`window.location.hash = 'run=' + encodeURIComponent(${JSON.stringify(PAYLOAD)})`);
  await page.waitForFunction(() => (document.getElementById('run-message')?.textContent ?? '').includes('Updates stopped'));
  assert.equal(await text('#run-id'), PAYLOAD);
  assert.ok(calls.some((c) => c.path === `/v1/matching-runs/${encodeURIComponent(PAYLOAD)}`), 'the id is percent-encoded into the path');
  await assertNoInjection(page, 'run id from the hash');

  assert.deepEqual(unexpected(errors), [], 'the page raised no errors and the CSP refused nothing');
  assertLocalOnly(requests);
  await page.close();
});

test('without the page\'s script, pressing Enter in the key or role form puts neither the key nor the role in the URL', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, requests } = await watchedPage(browser.context);
  await page.route('**/app.js', (route) => route.abort());
  await page.goto(`${baseUrl}/`);
  const secret = 'tm_secret_key_that_must_not_travel';
  await page.fill('#api-key', secret);
  let nav = page.waitForRequest((r) => r.isNavigationRequest());
  await page.press('#api-key', 'Enter');
  assert.ok(!(await nav).url().includes(secret), `the key form navigated to ${(await nav).url()}`);

  await page.goto(`${baseUrl}/`); // a fresh page, loaded: not the one the submission is replacing
  await page.fill('#role-title', 'Confidential role title');
  await page.fill('#role-description', 'Confidential description');
  nav = page.waitForRequest((r) => r.isNavigationRequest());
  await page.press('#role-title', 'Enter');
  assert.ok(!(await nav).url().includes('Confidential'), `the role form navigated to ${(await nav).url()}`);
  assert.deepEqual(requests.filter((u) => u.includes(secret) || u.includes('Confidential')), [], 'no request carried them');
  // The last submission's page may still be loading: drop its pending route so closing does not wait on it.
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  await page.close();
});

test('a rejected key (401) is forgotten and the key section says so; a valid key then resumes the run', { skip: SKIP, timeout: 30_000 }, async () => {
  const created = await fetch(`${baseUrl}/v1/matching-runs`, {
    method: 'POST',
    headers: { ...rt.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ role: GO_ROLE }),
  });
  assert.equal(created.status, 202);
  const { id } = (await created.json()) as { id: string };

  const { page, errors } = await watchedPage(browser.context);
  await page.goto(`${baseUrl}/#run=${id}`);
  assert.equal(await page.textContent('#run-empty'), 'Save your API key to resume the run in the address bar.');
  await saveKey(page, 'tm_wrong_key');
  await page.waitForFunction(() => (document.getElementById('key-status')?.textContent ?? '').includes('not accepted'));
  assert.equal(
    await page.textContent('#key-status'),
    'The saved API key was not accepted (401), so it was forgotten: paste a valid key and save it.',
  );
  assert.equal(await page.getAttribute('#api-key', 'aria-invalid'), 'true');
  assert.equal(await page.evaluate('sessionStorage.length'), 0, 'the rejected key is not kept');
  await page.waitForFunction(() => (document.getElementById('run-message')?.textContent ?? '').endsWith('Updates stopped.'));
  assert.equal(await page.isDisabled('#forget-key'), true, 'there is no key to forget');

  await saveKey(page, rt.apiKey);
  await page.waitForFunction(() => document.getElementById('run-status')?.textContent === 'queued');
  assert.equal(await page.textContent('#key-status'), 'Key saved for this tab.');
  assert.equal(await page.getAttribute('#api-key', 'aria-invalid'), null);
  assert.equal(await page.textContent('#progress-summary'), 'Queued: waiting to start.');
  assert.deepEqual(unexpected(errors), []);
  await page.close();
});
