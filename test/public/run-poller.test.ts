// The recruiter page's polling client (public/api.js) against the contract in docs/api.md, in Node: fetch is a
// scripted fake, setTimeout is node:test's mock clock, and the page's visibility is a fake document. No browser,
// no real time: every wait below is asserted to the millisecond of mock time.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';

interface Answer { status: number; headers?: Record<string, string>; body?: unknown }
interface Call { method: string; url: string; headers: Record<string, string> }
type Script = (call: Call) => Answer | 'network-error';

interface Handlers {
  ok(): void;
  run(run: { status: string }): void;
  events(items: unknown[]): void;
  error(err: { status: number; kind: string }, fatal: boolean, retryInSeconds?: number): void;
  done(run: unknown): void;
}
interface ApiModule {
  RunPoller: new (id: string, handlers: Handlers) => { start(): Promise<void>; stop(): void; readonly stopped: boolean };
  keyStore: { get(): string; set(key: string): void; clear(): void };
  onKeyRejected(listener: () => void): void;
}

// A specifier TypeScript does not resolve: the page's modules are plain browser JavaScript without declarations.
const API_URL = new URL('../../public/api.js', import.meta.url).href;
const api = (await import(API_URL)) as ApiModule;

const RUN_ID = '4f1c2a9e-8d7b-4c3a-9e2f-1a2b3c4d5e6f';
const KEY = 'tm_example_key';

class FakeDocument extends EventTarget {
  hidden = false;
  setHidden(hidden: boolean): void {
    this.hidden = hidden;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

const globals = globalThis as unknown as Record<string, unknown>;
let doc: FakeDocument;
let calls: Call[];
let script: Script;

function fakeResponse(a: Answer) {
  const text = a.body === undefined ? '' : JSON.stringify(a.body);
  return {
    status: a.status,
    ok: a.status >= 200 && a.status < 300,
    headers: new Headers(a.headers ?? {}),
    text: async () => text,
    json: async () => JSON.parse(text) as unknown,
  };
}

beforeEach(() => {
  const store = new Map<string, string>();
  globals.sessionStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  };
  doc = new FakeDocument();
  globals.document = doc;
  calls = [];
  globals.fetch = async (url: string, init: { method: string; headers: Record<string, string> }) => {
    const call = { method: init.method, url, headers: init.headers };
    calls.push(call);
    const a = script(call);
    if (a === 'network-error') throw new TypeError('Failed to fetch');
    return fakeResponse(a);
  };
  api.keyStore.set(KEY);
  mock.timers.enable({ apis: ['setTimeout'] });
});

afterEach(() => {
  mock.timers.reset();
});

/** Lets every pending promise chain run: the fake fetch answers without I/O, so one macrotask turn drains them. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function elapse(ms: number): Promise<void> {
  mock.timers.tick(ms);
  await settle();
}

const runGets = () => calls.filter((c) => c.url === `/v1/matching-runs/${RUN_ID}`);
const run = (status: string) => ({ id: RUN_ID, status, shortlist: [] });
const noEvents = { status: 200, body: { items: [], nextCursor: null } };

function recorder() {
  const log = { runs: [] as string[], errors: [] as Array<{ status: number; fatal: boolean; retryIn: number | undefined }>, done: 0 };
  const handlers: Handlers = {
    ok: () => {},
    run: (r) => void log.runs.push(r.status),
    events: () => {},
    error: (err, fatal, retryIn) => void log.errors.push({ status: err.status, fatal, retryIn }),
    done: () => void (log.done += 1),
  };
  return { log, handlers };
}

/** Asserts no poll happens in the next `ms - 1` ms of mock time and one does at `ms`. */
async function expectNextPollAfter(ms: number, what: string): Promise<void> {
  const before = runGets().length;
  await elapse(ms - 1);
  assert.equal(runGets().length, before, `${what}: no poll before ${ms} ms`);
  await elapse(1);
  assert.equal(runGets().length, before + 1, `${what}: one poll at ${ms} ms`);
}

test('polls with If-None-Match, renders nothing on 304, waits the Retry-After each answer gives and stops when the run is finished', async () => {
  const answers: Answer[] = [
    { status: 200, headers: { etag: '"v1"', 'retry-after': '2' }, body: run('running') },
    { status: 304, headers: { etag: '"v1"', 'retry-after': '3' } },
    { status: 200, headers: { etag: '"v2"' }, body: run('cancelled') },
  ];
  script = (c) => (c.url.includes('/events') ? noEvents : answers.shift()!);
  const { log, handlers } = recorder();
  const poller = new api.RunPoller(RUN_ID, handlers);
  const finished = poller.start();
  await settle();
  assert.equal(runGets().length, 1);
  assert.equal(runGets()[0]!.headers['If-None-Match'], undefined, 'the first poll has no ETag to send');
  assert.equal(runGets()[0]!.headers.Authorization, `Bearer ${KEY}`);
  assert.deepEqual(log.runs, ['running']);

  await expectNextPollAfter(2000, 'Retry-After: 2 on the 200');
  assert.equal(runGets()[1]!.headers['If-None-Match'], '"v1"', 'the last ETag is sent');
  assert.deepEqual(log.runs, ['running'], 'a 304 renders nothing');
  const eventPulls = calls.filter((c) => c.url.includes('/events')).length;

  await expectNextPollAfter(3000, 'Retry-After: 3 on the 304');
  assert.equal(runGets()[2]!.headers['If-None-Match'], '"v1"', 'a 304 keeps the ETag it matched');
  assert.deepEqual(log.runs, ['running', 'cancelled']);
  assert.ok(calls.filter((c) => c.url.includes('/events')).length > eventPulls, 'the finished run\'s last events are read');
  assert.equal(log.done, 1);
  await finished;
  assert.equal(poller.stopped, true);
  await elapse(600_000);
  assert.equal(runGets().length, 3, 'a finished run is not polled again');
});

test('a 429 or 503 is retried no sooner than its Retry-After, however long; errors without one back off exponentially to 10 s', async () => {
  const answers: Array<Answer | 'network-error'> = [
    { status: 429, headers: { 'retry-after': '45' }, body: { title: 'Too many requests', status: 429 } },
    { status: 503, headers: { 'retry-after': '20' }, body: { title: 'Service unavailable', status: 503 } },
    { status: 502 },
    'network-error',
    'network-error',
    'network-error',
    { status: 200, headers: { etag: '"v1"', 'retry-after': '1' }, body: run('running') },
    { status: 503 },
  ];
  script = (c) => (c.url.includes('/events') ? noEvents : answers.shift()!);
  const { log, handlers } = recorder();
  const poller = new api.RunPoller(RUN_ID, handlers);
  void poller.start();
  await settle();
  await expectNextPollAfter(45_000, 'Retry-After: 45 on a 429');
  assert.deepEqual(log.errors[0], { status: 429, fatal: false, retryIn: 45 }, 'the page is told how long it waits');
  await expectNextPollAfter(20_000, 'Retry-After: 20 on a 503');
  await expectNextPollAfter(8_000, 'third failure in a row, no Retry-After');
  await expectNextPollAfter(10_000, 'fourth failure: capped at 10 s');
  await expectNextPollAfter(10_000, 'fifth failure');
  await expectNextPollAfter(10_000, 'sixth failure');
  assert.deepEqual(log.runs, ['running']);
  await expectNextPollAfter(1000, 'a success resets the back-off and its Retry-After counts');
  await expectNextPollAfter(2000, 'the first failure after a success waits 2 s');
  poller.stop();
});

test('while the page is hidden nothing is polled; when it is shown again the run is polled at once', async () => {
  script = (c) => (c.url.includes('/events') ? noEvents : { status: 200, headers: { etag: '"v1"', 'retry-after': '1' }, body: run('running') });
  const { handlers } = recorder();
  const poller = new api.RunPoller(RUN_ID, handlers);
  const finished = poller.start();
  await settle();
  await expectNextPollAfter(1000, 'visible page');

  doc.setHidden(true);
  await elapse(600_000);
  assert.equal(runGets().length, 2, 'no poll while hidden (the one in flight when it was hidden is all)');
  doc.setHidden(false);
  await settle();
  assert.equal(runGets().length, 3, 'shown again: polled without waiting');
  await expectNextPollAfter(1000, 'then at the server\'s pace again');

  // Hidden before the page ever polls: the first request waits too, and stop() ends the wait.
  doc.setHidden(true);
  await elapse(1000);
  const hiddenAt = runGets().length;
  poller.stop();
  await finished;
  doc.setHidden(false);
  await elapse(10_000);
  assert.equal(runGets().length, hiddenAt, 'a stopped poller does not resume when the page is shown');
});

test('a 401 stops polling and forgets the key it was sent with, and the page is told; a key saved meanwhile is kept', async () => {
  let rejected = 0;
  api.onKeyRejected(() => void (rejected += 1));
  script = () => ({ status: 401, body: { title: 'Unauthorized', status: 401, detail: 'The API key is not valid.' } });
  const { log, handlers } = recorder();
  await new api.RunPoller(RUN_ID, handlers).start();
  assert.deepEqual(log.errors.map((e) => [e.status, e.fatal]), [[401, true]]);
  assert.equal(api.keyStore.get(), '', 'the rejected key is no longer stored');
  assert.equal(rejected, 1);
  await elapse(600_000);
  assert.equal(runGets().length, 1, 'a 401 is not retried');

  // The recruiter saves a new key while a request with the old one is on its way: the new key stays.
  api.keyStore.set('tm_old_key');
  script = () => {
    api.keyStore.set('tm_new_key');
    return { status: 401, body: { title: 'Unauthorized', status: 401 } };
  };
  await new api.RunPoller(RUN_ID, recorder().handlers).start();
  assert.equal(api.keyStore.get(), 'tm_new_key');
  assert.equal(rejected, 1, 'only a rejection of the stored key is reported');
});
