// The usage ledger's contract: one entry per model attempt (and per call the budget refused), plus an in-memory sink.
import type { FailureClass } from './retry.js';

export const LEDGER_OUTCOMES = ['ok', 'error', 'invalid_output', 'refused', 'truncated', 'timeout', 'rate_limited', 'budget', 'aborted'] as const;
export type LedgerOutcome = (typeof LEDGER_OUTCOMES)[number];

export interface LedgerEntry {
  orgId: string;
  runId: string | null;
  agent: string;
  model: string;
  promptTokens: number;
  /** Part of promptTokens billed at the cached-input price. */
  cachedTokens: number;
  completionTokens: number;
  costUsd: number;
  latencyMs: number;
  outcome: LedgerOutcome;
  /** The provider's x-request-id, to match our row with the provider's logs. */
  requestId: string | null;
  /** 1-based attempt within one call (retries of the same request); 0 for a call refused before any attempt. */
  attempt: number;
  error?: string;
  /**
   * The token counts (and so the cost) are our estimate, not the provider's: an answer without valid usage, or an
   * attempt that failed after its request was sent (charged its estimated prompt). Absent means false.
   */
  tokensEstimated?: boolean;
}

/** The outcome a failed attempt's row records. */
export function failureOutcome(failure: FailureClass): LedgerOutcome {
  if (failure.kind === 'rate_limited' || failure.kind === 'quota') return 'rate_limited';
  if (failure.kind === 'timeout') return 'timeout';
  // Ours, not the provider's: a run cancelled, a shutdown, a lease lost. Not an error rate to alert on.
  if (failure.kind === 'aborted') return 'aborted';
  return 'error';
}

export interface LedgerSink {
  record(entry: LedgerEntry): Promise<void>;
}

/** For tests and the offline engine: entries kept in order, in memory. */
export function createMemoryLedger() {
  const entries: LedgerEntry[] = [];
  return {
    async record(entry: LedgerEntry): Promise<void> {
      entries.push(Object.freeze({ ...entry }));
    },
    entries(): readonly LedgerEntry[] {
      return entries;
    },
    totals() {
      return entries.reduce(
        (t, e) => ({
          calls: t.calls + 1,
          promptTokens: t.promptTokens + e.promptTokens,
          cachedTokens: t.cachedTokens + e.cachedTokens,
          completionTokens: t.completionTokens + e.completionTokens,
          costUsd: t.costUsd + e.costUsd,
        }),
        { calls: 0, promptTokens: 0, cachedTokens: 0, completionTokens: 0, costUsd: 0 },
      );
    },
  };
}

export type MemoryLedger = ReturnType<typeof createMemoryLedger>;
