// The model-call ledger: every attempt is a row, and every usage figure is read back from these rows.
import type { Queryable } from '../db/database.js';
import type { LedgerEntry } from '../llm/ledger.js';

/** A ledger row is exactly the model layer's LedgerEntry: this store is the LedgerSink behind it. */
export type LedgerRow = LedgerEntry;

export type UsageGroup = 'day' | 'agent' | 'model';

const DAY_MS = 24 * 3600 * 1000;

/** The UTC day that holds `at`: from its midnight (included) to the next (excluded). */
export function utcDayOf(at: Date): { start: Date; end: Date } {
  const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  return { start: new Date(start), end: new Date(start + DAY_MS) };
}

const GROUP_KEYS: Record<UsageGroup, string> = {
  day: "to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')",
  agent: 'agent',
  model: 'model',
};

/** A row as written: when it happened, and (journal rows) its identity, which makes a retried write a no-op. */
type WrittenRow = LedgerRow & { at: Date; entryId?: string };

/**
 * The statement that writes ledger rows (a journal batch) and moves each run's totals once, by the sum of its rows,
 * its parameters appended to values. A row whose entryId is already written is skipped, and so not counted again.
 * `leading` are common table expressions written in the same statement (the journal's audit-trail rows), their
 * parameters already in values. `lockedFirst` names one of them whose rows are read (and so locked) before any run is.
 */
export function ledgerInsertSql(rows: WrittenRow[], values: unknown[], leading: string[] = [], lockedFirst?: string): string {
  const param = <V>(f: (r: WrittenRow) => V, type: string) => `$${values.push(rows.map(f))}::${type}[]`;
  const columns = [
    param((r) => r.orgId, 'uuid'),
    param((r) => r.runId, 'uuid'),
    param((r) => r.agent, 'text'),
    param((r) => r.model, 'text'),
    param((r) => r.promptTokens, 'int'),
    param((r) => r.cachedTokens, 'int'),
    param((r) => r.completionTokens, 'int'),
    param((r) => r.costUsd, 'numeric'),
    param((r) => Math.round(r.latencyMs), 'int'),
    param((r) => r.outcome, 'text'),
    param((r) => r.requestId, 'text'),
    param((r) => r.attempt, 'int'),
    param((r) => r.error?.slice(0, 1000) ?? null, 'text'),
    param((r) => r.at, 'timestamptz'),
    param((r) => r.tokensEstimated === true, 'bool'),
    param((r) => r.entryId ?? null, 'uuid'),
  ];
  const ctes = [
    ...leading,
    `call AS (
         INSERT INTO model_calls (org_id, run_id, agent, model, prompt_tokens, cached_tokens, completion_tokens,
                                  cost_usd, latency_ms, outcome, request_id, attempt, error, created_at, tokens_estimated, entry_id)
         SELECT * FROM unnest(${columns.join(', ')})
         ON CONFLICT (entry_id) WHERE entry_id IS NOT NULL DO NOTHING
         RETURNING run_id, prompt_tokens, completion_tokens, cost_usd)`,
    `totals AS (
         SELECT run_id, count(*) AS calls, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                sum(cost_usd) AS cost_usd
         FROM call WHERE run_id IS NOT NULL GROUP BY run_id)`,
    // The runs' rows locked in id order, as every statement that locks several runs takes them (an erasure, a
    // heartbeat): in whatever order a join met them, two such statements could each hold a row the other waits for.
    `runs AS (SELECT id FROM matching_runs WHERE id IN (SELECT run_id FROM totals) ORDER BY id FOR NO KEY UPDATE)`,
  ];
  return `WITH ${ctes.join(',\n')}
       UPDATE matching_runs r SET llm_calls = r.llm_calls + t.calls, prompt_tokens = r.prompt_tokens + t.prompt_tokens,
         completion_tokens = r.completion_tokens + t.completion_tokens, cost_usd = r.cost_usd + t.cost_usd,
         version = r.version + 1
       FROM totals t WHERE r.id = t.run_id${lockedFirst ? ` AND (SELECT count(*) FROM ${lockedFirst}) >= 0` : ''}
         AND (SELECT count(*) FROM runs) >= 0`;
}

export function createUsageStore(db: Queryable) {
  return {
    /** One row, and the run's running totals move in the same statement, so a poll never disagrees with the ledger. */
    async record(row: LedgerRow): Promise<void> {
      const values: unknown[] = [];
      await db.query(ledgerInsertSql([{ ...row, at: new Date() }], values), values);
    },

    async runTotals(runId: string): Promise<{ calls: number; tokens: number; costUsd: number }> {
      const r = await db.query<{ calls: number; tokens: number; cost: number }>(
        `SELECT count(*)::int AS calls, coalesce(sum(prompt_tokens + completion_tokens), 0)::bigint AS tokens,
                coalesce(sum(cost_usd), 0)::numeric AS cost FROM model_calls WHERE run_id = $1`,
        [runId],
      );
      const t = r.rows[0]!;
      return { calls: t.calls, tokens: Number(t.tokens), costUsd: Number(t.cost) };
    },

    /**
     * What the organisation spent on the UTC day that holds `at`. The caller's clock says which day that is, as the
     * caller's clock stamped the rows (the journal's `at`), so a test can put "now" a moment before midnight.
     */
    async spentOnUtcDayUsd(orgId: string, at: Date): Promise<number> {
      const day = utcDayOf(at);
      const r = await db.query<{ cost: number }>(
        `SELECT coalesce(sum(cost_usd), 0)::numeric AS cost FROM model_calls
         WHERE org_id = $1 AND created_at >= $2 AND created_at < $3`,
        [orgId, day.start, day.end],
      );
      return Number(r.rows[0]?.cost ?? 0);
    },

    async report(orgId: string, from: Date, to: Date, groupBy: UsageGroup) {
      const r = await db.query<{ key: string; calls: number; estimated: number; prompt: number; completion: number; cost: number }>(
        `SELECT ${GROUP_KEYS[groupBy]} AS key, count(*)::int AS calls, count(*) FILTER (WHERE tokens_estimated)::int AS estimated,
                sum(prompt_tokens)::bigint AS prompt, sum(completion_tokens)::bigint AS completion, sum(cost_usd)::numeric AS cost
         FROM model_calls WHERE org_id = $1 AND created_at >= $2 AND created_at < $3
         GROUP BY 1 ORDER BY 1`,
        [orgId, from, to],
      );
      const items = r.rows.map((x) => ({
        key: x.key,
        llmCalls: x.calls,
        estimatedCalls: x.estimated,
        promptTokens: Number(x.prompt),
        completionTokens: Number(x.completion),
        costUsd: Number(x.cost),
      }));
      const total = items.reduce(
        (t, i) => ({
          llmCalls: t.llmCalls + i.llmCalls,
          estimatedCalls: t.estimatedCalls + i.estimatedCalls,
          promptTokens: t.promptTokens + i.promptTokens,
          completionTokens: t.completionTokens + i.completionTokens,
          costUsd: t.costUsd + i.costUsd,
        }),
        { llmCalls: 0, estimatedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
      );
      // Each group's sum is exact (numeric); adding them as floats leaves noise, cleared at the ledger's 1e-10 precision.
      total.costUsd = Math.round(total.costUsd * 1e10) / 1e10;
      return { items, total };
    },
  };
}

export type UsageStore = ReturnType<typeof createUsageStore>;
