// api.js: same-origin client for the /v1 API (key storage, problem documents, run polling).

const KEY_STORAGE = 'talentMatcher.apiKey';
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);
const MAX_BACKOFF_S = 10; // the longest wait after errors that came without a Retry-After
const MAX_RETRY_AFTER_S = 300; // a Retry-After is honoured up to this; a longer one is taken as this
const EVENT_PAGES_PER_PULL = 20; // bounds one pull so a runaway cursor cannot spin forever

// The key lives in sessionStorage only: it survives a reload of this tab but not the tab itself, is not shared
// with other tabs, and is never put in a URL, a log or the DOM.
export const keyStore = {
  get() {
    try { return sessionStorage.getItem(KEY_STORAGE) || ''; } catch { return ''; }
  },
  set(key) { sessionStorage.setItem(KEY_STORAGE, key); },
  clear() { sessionStorage.removeItem(KEY_STORAGE); },
};

// A 401 means the stored key is wrong or revoked: it is forgotten (a request sent with an older key does not
// count) and the page is told, so the key section can say so instead of "a key is saved".
let keyRejectedListener = null;
export function onKeyRejected(listener) { keyRejectedListener = listener; }
function keyRejected(key) {
  if (keyStore.get() !== key) return;
  keyStore.clear();
  if (keyRejectedListener) keyRejectedListener();
}

export const isTerminal = (status) => TERMINAL.has(status);

// Every failure reaches the UI as one shape: an RFC 9457-like problem plus how it happened.
export class ApiError extends Error {
  constructor(kind, status, problem) {
    super(problem.title);
    this.kind = kind; // 'http' | 'network' | 'no-key'
    this.status = status;
    this.problem = problem;
  }
}

const DEFAULT_TITLES = {
  400: 'The request was not accepted',
  401: 'The API key was not accepted',
  403: 'This API key may not do that',
  404: 'Not found',
  409: 'Conflict',
  422: 'The request could not be processed',
  429: 'Too many requests: please wait a moment',
  503: 'The service is unavailable right now',
};

const str = (v) => (typeof v === 'string' ? v : v == null ? '' : String(v));

// Paths may come as "role.title", "/role/title" or ["role", "title"]; keep them as one string.
const pathOf = (p) => (Array.isArray(p) ? p.join('.') : str(p));

async function problemFrom(res) {
  let body = null;
  try {
    const text = await res.text();
    body = text ? JSON.parse(text) : null;
  } catch { body = null; } // a proxy's HTML error page is not JSON; fall back to defaults
  const p = body && typeof body === 'object' ? body : {};
  const errors = Array.isArray(p.errors) ? p.errors : [];
  return {
    title: str(p.title) || DEFAULT_TITLES[res.status] || (res.status >= 500 ? 'The service had a problem' : `Request failed (${res.status})`),
    detail: str(p.detail),
    status: res.status,
    errors: errors.filter((e) => e && typeof e === 'object').map((e) => ({ path: pathOf(e.path), message: str(e.message) })),
  };
}

async function request(method, path, { body, headers = {}, signal } = {}) {
  const key = keyStore.get();
  if (!key) throw new ApiError('no-key', 0, { title: 'No API key', detail: 'Paste your API key in the field above and save it first.', errors: [] });
  const h = { Accept: 'application/json, application/problem+json', Authorization: `Bearer ${key}`, ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  try {
    // no-store: the browser cache must neither answer for the server nor swallow our own 304s.
    const res = await fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: 'no-store', credentials: 'same-origin' });
    if (res.status === 401) keyRejected(key);
    return res;
  } catch (err) {
    if (err && err.name === 'AbortError') throw err;
    throw new ApiError('network', 0, { title: 'Could not reach the service', detail: 'Check your connection, then try again.', errors: [] });
  }
}

async function jsonOrThrow(res) {
  if (!res.ok) throw new ApiError('http', res.status, await problemFrom(res));
  if (res.status === 204) return null;
  return res.json();
}

// Retry-After is either delta-seconds or an HTTP date. The server's wait is honoured (a 429 may ask for most of a
// minute); the clamp only keeps a broken hint from hammering (0) or stalling the page for good (a year).
export function retryAfterSeconds(res, fallback = 1) {
  const raw = res && res.headers.get('Retry-After');
  let s = fallback;
  if (raw) {
    const n = Number(raw);
    if (Number.isFinite(n)) s = n;
    else if (!Number.isNaN(Date.parse(raw))) s = (Date.parse(raw) - Date.now()) / 1000;
  }
  return Math.min(MAX_RETRY_AFTER_S, Math.max(0.5, s));
}

export function newIdempotencyKey() {
  const c = window.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  // randomUUID exists only in secure contexts; plain-http access by LAN address still has getRandomValues.
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const runPath = (id) => `/v1/matching-runs/${encodeURIComponent(id)}`;

export async function createRun(body, idempotencyKey) {
  const res = await request('POST', '/v1/matching-runs', { body, headers: { 'Idempotency-Key': idempotencyKey } });
  const run = await jsonOrThrow(res);
  // The 202 body should carry the id; the Location header is the contract's second source for it.
  if (run && !run.id) run.id = decodeURIComponent(String(res.headers.get('Location') || '').split('/').pop() || '');
  return run;
}

export async function cancelRun(id) {
  const res = await request('POST', `${runPath(id)}/cancel`);
  if (!res.ok) throw new ApiError('http', res.status, await problemFrom(res));
}

export async function getRole(id) {
  return jsonOrThrow(await request('GET', `/v1/roles/${encodeURIComponent(id)}`));
}

export async function listRuns({ limit = 10, cursor } = {}) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (cursor) q.set('cursor', cursor);
  return jsonOrThrow(await request('GET', `/v1/matching-runs?${q}`));
}

async function getRun(id, etag, signal) {
  const res = await request('GET', runPath(id), { headers: etag ? { 'If-None-Match': etag } : {}, signal });
  const delay = retryAfterSeconds(res);
  if (res.status === 304) return { notModified: true, delay };
  if (!res.ok) {
    const err = new ApiError('http', res.status, await problemFrom(res));
    err.retryAfter = res.headers.get('Retry-After') ? delay : 0; // honoured on 429/503
    throw err;
  }
  const run = await res.json();
  return { notModified: false, run, etag: res.headers.get('ETag'), delay };
}

// Pages through events newer than afterSeq; the first call of a run omits `after` so seq 0 is not skipped.
async function getEventsSince(id, afterSeq, signal) {
  const out = [];
  let last = afterSeq;
  let cursor = null;
  for (let page = 0; page < EVENT_PAGES_PER_PULL; page++) {
    const q = new URLSearchParams({ limit: '100' });
    if (last !== null) q.set('after', String(last));
    if (cursor) q.set('cursor', cursor);
    const body = await jsonOrThrow(await request('GET', `${runPath(id)}/events?${q}`, { signal }));
    const items = Array.isArray(body && body.items) ? body.items : [];
    for (const ev of items) {
      if (last !== null && !(ev.seq > last)) continue; // tolerate overlapping pages
      out.push(ev);
      last = ev.seq;
    }
    cursor = body && body.nextCursor;
    if (!cursor || items.length === 0) break;
  }
  return { items: out, last };
}

// Polls one run until it finishes; wake() skips the current wait (after a cancel), stop() ends it. Nothing is
// polled while the page is hidden (a background tab costs the service nothing); shown again, it polls at once.
export class RunPoller {
  constructor(id, handlers) {
    this.id = id;
    this.on = handlers; // { ok(), run(run), events(items), error(err, fatal, retryInSeconds), done(run) }
    this.ctrl = new AbortController();
    this.etag = null;
    this.lastSeq = null;
    this.eventsStale = false;
    this.wakeUp = null;
  }

  get stopped() { return this.ctrl.signal.aborted; }

  stop() { this.ctrl.abort(); if (this.wakeUp) this.wakeUp(); }

  wake() { if (this.wakeUp) this.wakeUp(); }

  sleep(seconds) {
    return new Promise((resolve) => {
      const t = setTimeout(done, seconds * 1000);
      function done() { clearTimeout(t); resolve(); }
      this.wakeUp = done;
    }).finally(() => { this.wakeUp = null; });
  }

  // Resolves at once while the page is visible, else when it is shown again or the poller is stopped.
  whenVisible() {
    if (!document.hidden) return Promise.resolve();
    return new Promise((resolve) => {
      const signal = this.ctrl.signal;
      const check = () => {
        if (document.hidden && !signal.aborted) return;
        document.removeEventListener('visibilitychange', check);
        signal.removeEventListener('abort', check);
        resolve();
      };
      document.addEventListener('visibilitychange', check);
      signal.addEventListener('abort', check);
    });
  }

  async pullEvents() {
    try {
      const { items, last } = await getEventsSince(this.id, this.lastSeq, this.ctrl.signal);
      this.lastSeq = last;
      this.eventsStale = false;
      if (items.length && !this.stopped) this.on.events(items);
    } catch (err) {
      if (err && err.name === 'AbortError') return;
      this.eventsStale = true; // retried on the next poll even if the run answers 304
      this.on.error(err, false);
    }
  }

  async start() {
    let failures = 0;
    let finalRun = null;
    let finalTries = 0;
    while (!this.stopped) {
      await this.whenVisible();
      if (this.stopped) break;
      let delay = 1;
      try {
        const r = await getRun(this.id, this.etag, this.ctrl.signal);
        if (this.stopped) break;
        failures = 0;
        this.on.ok();
        delay = r.delay;
        if (!r.notModified) {
          if (r.etag) this.etag = r.etag;
          this.on.run(r.run);
          if (isTerminal(r.run.status)) finalRun = r.run;
        }
        if (!r.notModified || this.eventsStale) await this.pullEvents();
        // A finished run needs its last events too; give a failing events call a few more tries.
        if (finalRun && (!this.eventsStale || ++finalTries > 3)) {
          this.ctrl.abort();
          this.on.done(finalRun);
          return;
        }
      } catch (err) {
        if (err && err.name === 'AbortError') return;
        // Client errors (bad key, unknown or malformed id) won't fix themselves; 408/429 are worth retrying.
        const fatal = err.kind === 'no-key' || (err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429);
        if (fatal) {
          this.on.error(err, true);
          this.ctrl.abort();
          return;
        }
        failures += 1;
        // Back off while the service or network is down, but never poll sooner than the server asked.
        delay = Math.max(Math.min(MAX_BACKOFF_S, 2 ** failures), err.retryAfter || 0);
        this.on.error(err, false, delay);
      }
      if (!this.stopped) await this.sleep(delay);
    }
  }
}
