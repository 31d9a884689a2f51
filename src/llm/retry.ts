// Our single retry layer: exponential backoff with full jitter, Retry-After honoured, never past the deadline.
import type { Logger } from 'pino';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { DeadlineExceededError } from './errors.js';
import { logSafeText } from '../text/log-safe-text.js';
import { ResponseTooLargeError } from './http-fetch.js';

export const FAILURE_KINDS = ['rate_limited', 'quota', 'server', 'too_large', 'connection', 'timeout', 'client', 'aborted', 'other'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface FailureClass {
  kind: FailureKind;
  retryable: boolean;
  /** The provider's HTTP status, when there was an answer at all. */
  status: number | null;
  /** The pause the provider asked for (Retry-After / retry-after-ms), if it asked. */
  retryAfterMs: number | null;
}

export interface AttemptReport {
  attempt: number;
  error: unknown;
  failure: FailureClass | null;
  willRetry: boolean;
  delayMs: number | null;
}

export interface RetryPolicy {
  /** Retries after the first attempt: maxRetries 2 means at most 3 attempts. */
  maxRetries: number;
  baseMs: number;
  maxMs: number;
  /** Epoch ms. No wait ends after it; no attempt starts after it. */
  deadline?: number;
  signal?: AbortSignal;
  onAttempt?: (report: AttemptReport) => void;
  classify?: (err: unknown) => FailureClass;
  random?: () => number;
  now?: () => number;
}

/** Reads `retry-after-ms` (OpenAI's, in ms) or `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers | undefined | null, now: number = Date.now()): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * The SDK reports every failure of its fetch as an APIConnectionError ("Connection error.") around it, so a fault
 * our fetch named is found as that error's cause.
 */
function tooLarge(err: unknown): ResponseTooLargeError | null {
  if (err instanceof ResponseTooLargeError) return err;
  return err instanceof APIConnectionError && err.cause instanceof ResponseTooLargeError ? err.cause : null;
}

/**
 * What a failed attempt's ledger row says: the message (our fetch's own rather than the SDK's "Connection error."
 * around it) and the request id, the provider's where it sent one, else `fallback`. The message is the provider's
 * error body, which may echo the request (`sent`, its text): scrubbed, with quoted values and the echo cut, as a log
 * line would carry it.
 */
export function attemptFailure(err: unknown, fallback: string | null = null, sent = ''): { message: string; requestId: string | null } {
  const named = tooLarge(err);
  const cause = named ?? err;
  const message = logSafeText(cause instanceof Error ? cause.message : String(cause), 1000, sent);
  return { message, requestId: named?.requestId ?? (err as { requestID?: string | null } | null)?.requestID ?? fallback };
}

/** The error a failed call is reported with: our fetch's named fault itself, not the SDK's wrapper that hides it. */
export function reportedCause(err: unknown): unknown {
  return tooLarge(err) ?? err;
}

export function classifyFailure(err: unknown): FailureClass {
  const fail = (kind: FailureKind, retryable: boolean, status: number | null = null, after: number | null = null): FailureClass => ({
    kind,
    retryable,
    status,
    retryAfterMs: after,
  });
  // Order matters: the abort and timeout errors are subclasses of the connection error, which is an APIError.
  if (err instanceof APIUserAbortError) return fail('aborted', false);
  // The SDK reads a body as JSON only when the status was a success: a body that is not JSON (NaN from a Python
  // server, a truncated answer) came with a 2xx. Not retried, as any 200 that holds no completion (answer-shape.ts).
  if (err instanceof SyntaxError) return fail('other', false, 200);
  // Not retryable: the network does not make a body larger, the server made it so, and asking again for an answer
  // it may bill (mayBeBilled) would likely pay again for the same one. Its status is the answer's.
  const oversize = tooLarge(err);
  if (oversize) return fail('too_large', false, oversize.status);
  if (err instanceof APIConnectionTimeoutError) return fail('timeout', true);
  if (err instanceof APIConnectionError) return fail('connection', true);
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const after = retryAfterMs(err.headers);
    if (status === 429) {
      // An empty account will not refill while we back off: retrying only burns the run's time.
      const quota = err.code === 'insufficient_quota' || err.type === 'insufficient_quota';
      return quota ? fail('quota', false, status) : fail('rate_limited', true, status, after);
    }
    if (status === 408) return fail('timeout', true, status, after);
    if (status >= 500) return fail('server', true, status, after);
    return fail('client', false, status);
  }
  return fail('other', false);
}

// Connection failures raised before a request is on the wire (no socket, no route, no name): nothing reached the provider.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Whether a failed attempt may still be billed: its request was sent and we stopped waiting before any answer
 * told us it was not processed. Providers bill a request they processed whether or not its answer reached us.
 *   - our timeout, an abort during the request, a connection lost after connecting (reset, hang-up), a 504
 *     (a gateway gave up on an upstream that may still be generating): billable;
 *   - an HTTP error answer otherwise (4xx, 429, 500, 502, 503): the provider refused or failed the request
 *     and does not bill it; a 408 means it never had the whole request;
 *   - a connection never made (refused, no route, unknown host), or a failure that is not the SDK's: not sent;
 *   - a 2xx whose body could not be read as JSON: the provider did the work, billable;
 *   - an answer over our size cap: billed as its status says. A 2xx means the provider did the work (a body we
 *     refused to read is still generated, and billed); an error status means what it would with a small body.
 * The caller knows one more case: a signal already aborted before the request is never sent (the SDK checks it).
 */
export function mayBeBilled(err: unknown, failure: FailureClass = classifyFailure(err)): boolean {
  switch (failure.kind) {
    case 'aborted':
      return true;
    case 'timeout':
      return failure.status === null;
    case 'connection': {
      const code = errorCode((err as { cause?: unknown }).cause);
      return code === undefined || !NOT_SENT_CODES.has(code);
    }
    case 'server':
      return failure.status === 504;
    case 'too_large':
      return failure.status !== null && ((failure.status >= 200 && failure.status < 300) || failure.status === 504);
    case 'other':
      return failure.status !== null && failure.status >= 200 && failure.status < 300;
    default:
      return false;
  }
}

/** The least time a request is sent with: a request with less left before its deadline could hardly be answered. */
export const MIN_REQUEST_MS = 1_000;

/**
 * A request's timeout: the configured one, cut to what is left before the deadline. A request that waited for a model
 * slot (LLM_CONCURRENCY) until too little is left is not sent at all: sent with a 1 ms timeout it was charged as a
 * request the provider may bill, though none was answered, and most often none even reached it.
 */
export function requestTimeout(timeoutMs: number, deadline: number | undefined, started: number): number {
  if (deadline === undefined) return timeoutMs;
  const left = Math.floor(deadline - started);
  if (left < MIN_REQUEST_MS) throw new DeadlineExceededError(deadline, `${Math.max(0, left)} ms left once a model slot was free: not sent`);
  return Math.min(timeoutMs, left);
}

/** Full jitter: uniform in [0, min(maxMs, baseMs * 2^(attempt-1))], so synchronized clients spread out. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A failed attempt in the log: a warning, but an abort of ours (a cancel, a shutdown, a lost lease) at debug. */
export function logFailedAttempt(log: Pick<Logger, 'debug' | 'warn'> | undefined, failure: FailureClass | null, line: object, what: 'model' | 'embedding'): void {
  if (failure?.kind === 'aborted') log?.debug(line, `${what} attempt aborted`);
  else log?.warn(line, `${what} attempt failed`);
}

/**
 * Runs fn until it succeeds, a failure is not retryable, retries are used up, or the next wait would pass
 * the deadline (DeadlineExceededError, with the last failure as cause). Other failures are rethrown as they are.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const classify = policy.classify ?? classifyFailure;
  const now = policy.now ?? Date.now;
  let lastError: unknown;
  for (let attempt = 1; ; attempt++) {
    if (policy.signal?.aborted) throw policy.signal.reason;
    if (policy.deadline !== undefined && now() >= policy.deadline) {
      throw new DeadlineExceededError(policy.deadline, `no time left for attempt ${attempt}`, lastError);
    }
    try {
      const value = await fn(attempt);
      policy.onAttempt?.({ attempt, error: null, failure: null, willRetry: false, delayMs: null });
      return value;
    } catch (err) {
      lastError = err;
      const failure = classify(err);
      let delayMs: number | null = null;
      let giveUp: unknown = err;
      if (failure.retryable && attempt <= policy.maxRetries) {
        delayMs = failure.retryAfterMs ?? backoffDelay(attempt, policy.baseMs, policy.maxMs, policy.random);
        if (failure.retryAfterMs !== null && failure.retryAfterMs > policy.maxMs) {
          // The provider asks for a longer pause than we ever take: retrying sooner is certain to fail,
          // and a worker parked for minutes holds a run's lease, so give up with the provider's error.
          delayMs = null;
        } else if (policy.deadline !== undefined && now() + delayMs >= policy.deadline) {
          giveUp = new DeadlineExceededError(policy.deadline, `retry ${attempt} would wait ${delayMs} ms`, err);
          delayMs = null;
        }
      }
      const willRetry = delayMs !== null;
      policy.onAttempt?.({ attempt, error: err, failure, willRetry, delayMs });
      if (delayMs === null) throw giveUp;
      await sleep(delayMs, policy.signal);
    }
  }
}
