// The rate limiter's counters: one fixed-window table per app, shared by every route, so a group of routes
// (the rate-limit groupId: "writes", "runs") spends one allowance per API key however many routes it spans.
import type { FastifyRateLimitStore } from '@fastify/rate-limit';

interface Window {
  count: number;
  startedAt: number;
}

// Expired windows are swept once the table grows past this, so a flood of distinct keys stays bounded.
const SWEEP_AT = 10_000;

/**
 * @fastify/rate-limit's own LocalStore gives every route a fresh table (child() starts empty), so a limit
 * configured as "per key" was really "per key and route": two routes that start runs allowed twice the runs.
 */
export class SharedRateLimitStore implements FastifyRateLimitStore {
  private readonly windows = new Map<string, Window>();

  incr(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void, timeWindow: number): void {
    // Monotonic: a wall clock stepped back an hour kept a window open, and its client locked out, for that hour.
    const now = performance.now();
    if (this.windows.size > SWEEP_AT) {
      for (const [k, w] of this.windows) if (w.startedAt + timeWindow <= now) this.windows.delete(k);
    }
    let window = this.windows.get(key);
    if (!window || window.startedAt + timeWindow <= now) {
      window = { count: 0, startedAt: now };
      this.windows.set(key, window);
    }
    window.count++;
    // The time left as the window's length less the time passed: (start + length) - now is not exactly the length
    // in floating point for a window that starts now (50.000000000000114 ms for 50).
    callback(null, { current: window.count, ttl: timeWindow - (now - window.startedAt) });
  }

  /** Every route gets this very table; the route's window and max arrive with each incr(). */
  child(): FastifyRateLimitStore {
    return this;
  }
}
