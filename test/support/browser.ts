// Headless Chromium for the recruiter-page tests: one launch per test file, pages that record every request and
// error, and a scripted stand-in for the /v1 API (the page itself is still served by the real service, with its
// real security headers). Tests are skipped when Chromium is not installed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { startTestRuntime, type TestRuntime } from './runtime.js';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// .ci/run sets E2E_REQUIRE_CHROMIUM=1: there a missing browser fails the tests instead of skipping them, or CI would pass
// without ever driving the page.
const REQUIRED = process.env.E2E_REQUIRE_CHROMIUM === '1';
const FOUND = existsSync(CHROMIUM);
export const SKIP: string | false =
  FOUND || REQUIRED ? false : `Chromium not found at ${CHROMIUM} (install Debian's "chromium" package or set CHROMIUM_PATH)`;

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!FOUND) throw new Error(`Chromium not found at ${CHROMIUM}, and E2E_REQUIRE_CHROMIUM=1 says the browser tests must run`);
  const { chromium } = await import('playwright-core');
  const profileDir = await mkdtemp(join(tmpdir(), 'tm-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
    timeout: 20_000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/** A page whose every request and error is recorded, for the "stays local, raises nothing" checks. */
/** The service serving the page (API only: a run stays queued) on a free port, and Chromium; close() ends both. */
export async function servePageToChromium(): Promise<{ rt: TestRuntime; baseUrl: string; browser: Browser; close(): Promise<void> }> {
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api' });
  const baseUrl = await rt.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchChromium().catch(async (err: unknown) => {
    await rt.close();
    throw err;
  });
  const close = async () => {
    await browser.close();
    await rt.close();
  };
  return { rt, baseUrl, browser, close };
}

export async function watchedPage(context: BrowserContext): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // CSP violations and failed loads only show up as console errors.
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  return { page, requests, errors };
}

export function assertLocalOnly(requests: string[]): void {
  assert.ok(requests.length > 0, 'the page made requests at all');
  const external = requests.filter((u) => {
    const url = new URL(u);
    if (url.protocol === 'data:' || url.protocol === 'blob:') return false;
    return url.hostname !== '127.0.0.1';
  });
  assert.deepEqual(external, [], 'no request leaves 127.0.0.1');
}

export interface ApiCall {
  method: string;
  /** Path and query, e.g. /v1/matching-runs?limit=10 */
  path: string;
  headers: Record<string, string>;
  body: unknown;
}
export interface ApiAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}
/** An answer, 'abort' for a network failure, or a promise of either (to hold a request open). */
export type ApiScript = (call: ApiCall) => ApiAnswer | 'abort' | Promise<ApiAnswer | 'abort'>;

/** Answers the page's /v1 requests from `script` and records them; everything else still goes to the service. */
export async function stubApi(page: Page, script: ApiScript): Promise<ApiCall[]> {
  const calls: ApiCall[] = [];
  await page.route('**/v1/**', async (route: Route) => {
    const req = route.request();
    const url = new URL(req.url());
    const text = req.postData();
    const call = { method: req.method(), path: url.pathname + url.search, headers: req.headers(), body: text ? JSON.parse(text) as unknown : undefined };
    calls.push(call);
    const answer = await script(call);
    if (answer === 'abort') return route.abort('failed');
    const problem = answer.status >= 400;
    return route.fulfill({
      status: answer.status,
      headers: { 'content-type': problem ? 'application/problem+json' : 'application/json', ...answer.headers },
      body: answer.body === undefined ? '' : JSON.stringify(answer.body),
    });
  });
  return calls;
}
