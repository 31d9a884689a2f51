// Whether a worker is still working, for a worker process's /readyz: its claim loop and its lease heartbeat each
// made progress recently, and it is not stopping.

/**
 * How long either may go without progress: two heartbeat intervals (the lease is at least two, so by then the
 * worker's leases are lapsing and its runs going to others) plus one idle poll (an idle loop passes once a poll).
 */
export function stallBoundMs(opts: { pollMs: number; heartbeatMs: number }): number {
  return 2 * opts.heartbeatMs + opts.pollMs;
}

export interface LivenessOptions {
  pollMs: number;
  heartbeatMs: number;
  /** Milliseconds on any monotonic scale; tests drive it. */
  now: () => number;
}

export function createLiveness(opts: LivenessOptions) {
  const boundMs = stallBoundMs(opts);
  const started = opts.now();
  // A pass of the loop is stamped when it begins: one that never ends (a claim that never returns) stops the stamps.
  let loopPassAt = started;
  // The heartbeat is a timer that fires whatever became of the last tick: only a tick that finished counts.
  let heartbeatAt = started;
  let stopping = false;

  return {
    boundMs,
    loopPassed(): void {
      loopPassAt = opts.now();
    },
    heartbeatDone(): void {
      heartbeatAt = opts.now();
    },
    stopping(): void {
      stopping = true;
    },
    /** Why the worker is not ready to work, or null when it is. */
    problem(): string | null {
      if (stopping) return 'The worker is stopping: it claims no more runs.';
      const now = opts.now();
      const loopIdle = now - loopPassAt;
      if (loopIdle > boundMs) return `The worker's claim loop has not begun a pass for ${Math.round(loopIdle)} ms (the bound is ${boundMs} ms).`;
      const heartbeatIdle = now - heartbeatAt;
      if (heartbeatIdle > boundMs) return `The worker's lease heartbeat has not completed for ${Math.round(heartbeatIdle)} ms (the bound is ${boundMs} ms).`;
      return null;
    },
  };
}

export type Liveness = ReturnType<typeof createLiveness>;
