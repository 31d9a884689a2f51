// End to end: the recruiter page in headless Chromium against the real service (embedded database, heuristic engine).
// Enter the key, submit a role, watch the run finish, read the ranked shortlist with its sub-score bars;
// no request may leave 127.0.0.1 and the page must raise no errors. Skipped when Chromium is not installed.
// UPDATE_DOCS_SCREENSHOT=1 also refreshes docs/recruiter-page.png from this run.
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertLocalOnly, launchChromium, SKIP, watchedPage as newWatchedPage, type Browser } from '../support/browser.js';
import { backendPool, GO_ROLE } from '../support/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../support/runtime.js';

// Callbacks given to page.evaluate and friends run inside Chromium; the project compiles without the DOM lib,
// so these module-local declarations describe just what they touch (they emit nothing).
interface DomNode {
  textContent: string | null;
  dataset: Record<string, string | undefined>;
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomNode | null;
  querySelectorAll(selector: string): Iterable<DomNode>;
}
declare const document: {
  getElementById(id: string): DomNode | null;
  documentElement: { scrollWidth: number; clientWidth: number };
  body: { scrollWidth: number };
};
declare const window: { location: { hash: string }; scrollTo(x: number, y: number): void };

const SUBSCORE_KEYS = ['hardSkills', 'domain', 'seniority', 'impact', 'logistics', 'trajectory'];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUT_DIR = join(ROOT, 'test-output');
const SCREENSHOT = join(OUT_DIR, 'recruiter-page.png');
const DOCS_SCREENSHOT = join(ROOT, 'docs', 'recruiter-page.png');

let rt: TestRuntime;
let baseUrl: string;
let origin: string;
let browser: Browser;
let runId: string | undefined; // the run the desktop test started; the phone test opens it again

before(async () => {
  if (SKIP) return;
  rt = await startTestRuntime({ PROCESS_ROLE: 'all', MATCH_ENGINE: 'heuristic' });
  baseUrl = await rt.app!.listen({ port: 0, host: '127.0.0.1' });
  origin = new URL(baseUrl).origin;

  // The candidate pool goes in over HTTP, exactly as a client would send it.
  const res = await fetch(`${baseUrl}/v1/candidates`, {
    method: 'POST',
    headers: { ...rt.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ candidates: backendPool() }),
  });
  if (res.status !== 200) {
    const serverErrors = rt.logs.filter((l) => Number(l.level) >= 50).map((l) => JSON.stringify(l.err ?? l.msg));
    assert.fail(`seeding candidates answered ${res.status}: ${await res.text()}\nserver errors: ${serverErrors.join('\n')}`);
  }

  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await rt?.close();
});

const watchedPage = () => newWatchedPage(browser.context);

async function saveKey(page: Page): Promise<void> {
  await page.fill('#api-key', rt.apiKey);
  await page.click('#save-key');
  await page.waitForFunction(() => document.getElementById('key-status')?.textContent === 'Key saved for this tab.');
  assert.equal(await page.inputValue('#api-key'), '', 'the key does not stay in the DOM');
}

async function waitForTerminalRun(page: Page): Promise<string> {
  await page.waitForFunction(
    () => ['succeeded', 'failed', 'cancelled'].includes(document.getElementById('run-status')?.textContent ?? ''),
    null,
    { timeout: 30_000 },
  );
  // The status is shown before the last events are fetched: the page is complete once the stop is on the timeline.
  await page.waitForSelector('#events li.event[data-type="run.stopped"], #events li.event[data-type="run.failed"]', { timeout: 10_000 });
  return page.textContent('#run-status') as Promise<string>;
}

async function startRunThroughApi(): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/matching-runs`, {
    method: 'POST',
    headers: { ...rt.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({ role: GO_ROLE, maxIterations: 2, scoreThreshold: 50, targetStrong: 2 }),
  });
  assert.equal(res.status, 202, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

interface Entry {
  rank: number;
  total: number;
  candidateId: string;
  meta: string;
  bars: Array<{ key: string; role: string | null; now: number; min: number; max: number }>;
}

const readShortlist = (page: Page): Promise<Entry[]> =>
  page.$$eval('#shortlist li.shortlist-entry', (lis: DomNode[]) =>
    lis.map((li) => ({
      rank: Number(li.dataset.rank),
      total: Number(li.querySelector('.total-score')?.textContent),
      candidateId: li.dataset.candidateId ?? '',
      meta: li.querySelector('.candidate-meta')?.textContent ?? '',
      bars: [...li.querySelectorAll('.subscore-bar')].map((b) => ({
        key: b.dataset.subscore ?? '',
        role: b.getAttribute('role'),
        now: Number(b.getAttribute('aria-valuenow')),
        min: Number(b.getAttribute('aria-valuemin')),
        max: Number(b.getAttribute('aria-valuemax')),
      })),
    })),
  );

test('a recruiter enters the key, submits a role, watches the run finish and reads the ranked shortlist', { skip: SKIP, timeout: 60_000 }, async () => {
  const { page, requests, errors } = await watchedPage();
  await page.goto(`${baseUrl}/`);
  const unlabelled = await page.$$eval('input, select, textarea', (els: Array<{ id: string; labels: { length: number } }>) =>
    els.filter((e) => e.labels.length === 0).map((e) => e.id));
  assert.deepEqual(unlabelled, [], 'every form control has a label');
  await saveKey(page);

  await page.fill('#role-title', GO_ROLE.title);
  await page.fill('#role-description', GO_ROLE.description);
  await page.fill('#must-have', GO_ROLE.mustHaveSkills.join(', '));
  await page.fill('#nice-to-have', GO_ROLE.niceToHaveSkills.join(', '));
  await page.selectOption('#seniority', GO_ROLE.seniority);
  await page.fill('#min-years', String(GO_ROLE.minYearsExperience));
  await page.fill('#location', GO_ROLE.location);
  await page.selectOption('#remote', String(GO_ROLE.remote));
  await page.fill('#max-iterations', '2');
  await page.fill('#score-threshold', '50');
  await page.fill('#target-strong', '2');
  await page.click('#submit-run');

  await page.waitForFunction(() => /^#run=./.test(window.location.hash));
  runId = decodeURIComponent(new URL(page.url()).hash.slice('#run='.length));
  const status = await waitForTerminalRun(page);
  const runError = (await page.locator('#run-error').isVisible()) ? await page.textContent('#run-error') : '';
  assert.equal(status, 'succeeded', `run finished as ${status} ${runError}`);
  assert.equal(await page.isHidden('#form-errors'), true, 'no form problem is shown');
  assert.equal(await page.isHidden('#run-error'), true, 'no run error is shown');
  assert.equal(await page.locator('#run-message.is-error').count(), 0, 'no error message under the run');
  assert.equal(await page.isHidden('#cancel-run'), true, 'a finished run cannot be cancelled');

  // What the API says, to compare the page against.
  const api = await (await fetch(`${baseUrl}/v1/matching-runs/${encodeURIComponent(runId)}`, { headers: rt.auth() })).json() as {
    status: string; stop: { reason: string } | null;
    progress: { iteration: number; maxIterations: number; strongCandidates: number };
    shortlist: Array<{ candidateId: string; externalId: string | null; totalScore: number; subscores: Record<string, number> }>;
  };
  assert.equal(api.status, 'succeeded');
  assert.equal(await page.textContent('#run-id'), runId);
  // The run names its role by its title, and what counts as strong.
  await page.waitForFunction((title) => (document.getElementById('run-meta')?.textContent ?? '').includes(title), GO_ROLE.title);
  assert.match((await page.textContent('#run-meta')) ?? '', /Strong ata total of 50 or more/);

  const entries = await readShortlist(page);
  assert.ok(entries.length > 0, 'the shortlist has entries');
  assert.equal(entries.length, api.shortlist.length, 'every shortlisted candidate is shown');
  entries.forEach((e, i) => {
    assert.equal(e.rank, i + 1, `entry ${i} has rank ${i + 1}`);
    if (i > 0) assert.ok(e.total <= entries[i - 1]!.total, `totals descend: ${entries.map((x) => x.total).join(', ')}`);
    assert.ok(e.total >= 0 && e.total <= 100, `total ${e.total} is within 0..100`);
    assert.equal(e.candidateId, api.shortlist[i]!.candidateId, `entry ${i} is the API's entry ${i}`);
    assert.equal(e.total, api.shortlist[i]!.totalScore, `entry ${i} shows the API's total`);
    assert.deepEqual(e.bars.map((b) => b.key), SUBSCORE_KEYS, `entry ${i} has the six sub-score bars`);
    for (const b of e.bars) {
      assert.equal(b.role, 'meter');
      assert.ok(b.min <= b.now && b.now <= b.max, `${b.key} ${b.now} within ${b.min}..${b.max}`);
      assert.equal(b.now, api.shortlist[i]!.subscores[b.key], `entry ${i} ${b.key} bar shows the API's value`);
    }
  });
  assert.equal(api.shortlist[0]!.externalId, 'c1', 'the Go engineer ranks first');
  assert.match(entries[0]!.meta, /^c1 · /, 'the first entry names external id c1');

  // The rest of the run view is filled from the same run.
  assert.equal(await page.getAttribute('#stop-reason', 'data-reason'), api.stop?.reason);
  assert.match(await page.innerText('#run-progress'), /Iteration\s+\d+ \/ 2/);
  assert.match(await page.innerText('#usage'), /LLM calls\s+0/);
  // Progress is also one sentence in a polite live region, so a screen reader hears the run advance.
  assert.equal(await page.getAttribute('#progress-summary', 'aria-live'), 'polite');
  const p = api.progress;
  const strong = `${p.strongCandidates} strong candidate${p.strongCandidates === 1 ? '' : 's'}`;
  assert.equal(await page.textContent('#progress-summary'), `Finished after iteration ${p.iteration} of ${p.maxIterations}: ${strong}.`);
  const events = await page.$$eval('#events li.event', (lis: DomNode[]) =>
    lis.map((li) => ({ type: li.dataset.type ?? '', label: li.querySelector('.event-head strong')?.textContent ?? '' })));
  const eventTypes = events.map((e) => e.type);
  assert.deepEqual(events.filter((e) => e.label === e.type).map((e) => e.type), [], 'every event type has a readable label');
  assert.equal(eventTypes[0], 'run.queued', 'the timeline starts when the run was queued');
  assert.ok(eventTypes.includes('run.started'), 'the timeline shows the run starting');
  assert.ok(eventTypes.includes('candidate.scored'), 'the timeline shows scoring');
  assert.equal(eventTypes.at(-1), 'run.stopped', 'the timeline ends with the stop');
  // Recent runs lists this run, marked as the open one.
  await page.waitForSelector(`#recent-runs a[data-run-id="${runId}"][aria-current="true"]`);

  await mkdir(OUT_DIR, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(SCREENSHOT, DOCS_SCREENSHOT);

  assert.deepEqual(errors, [], 'the page raised no errors');
  assertLocalOnly(requests);
  await page.close();
});

test('at phone width (375 px) the page, empty and with a finished run, does not scroll sideways', { skip: SKIP, timeout: 30_000 }, async () => {
  const { page, requests, errors } = await watchedPage();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${baseUrl}/`);
  const overflow = () =>
    page.evaluate(() => ({
      scrollWidth: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth),
      clientWidth: document.documentElement.clientWidth,
    }));

  let o = await overflow();
  assert.ok(o.scrollWidth <= o.clientWidth, `empty page is ${o.scrollWidth}px wide in a ${o.clientWidth}px viewport`);

  await saveKey(page);
  // The desktop test's run; run alone (or after that test failed early), one started here the way a client would.
  const id = runId ?? (await startRunThroughApi());
  // Session storage is per tab, so this tab saved its own key; the hash route opens the run.
  await page.goto(`${baseUrl}/#run=${encodeURIComponent(id)}`);
  assert.equal(await waitForTerminalRun(page), 'succeeded');
  await page.waitForSelector('#shortlist li.shortlist-entry');
  // Open every event's data so long JSON lines are in the layout too.
  const opened = await page.$$eval('#events details', (ds: Array<{ open: boolean }>) => ds.map((d) => (d.open = true)).length);
  assert.ok(opened > 0, 'the timeline has event data to open');
  o = await overflow();
  assert.ok(o.scrollWidth <= o.clientWidth, `page with a run is ${o.scrollWidth}px wide in a ${o.clientWidth}px viewport`);
  await page.screenshot({ path: join(OUT_DIR, 'recruiter-page-375.png'), fullPage: true });

  assert.deepEqual(errors, [], 'the page raised no errors');
  assertLocalOnly(requests);
  assert.ok(requests.some((u) => u.startsWith(origin)), 'requests went to the service');
  await page.close();
});
