// The journal: model-call ledger rows and audit-trail rows, written behind the work they record.
// A model answer, a step or a scored candidate never waits for its row; rows are written in batches as
// fast as the database takes them (see createBatchWriter), and a run is finished only after flush().
import type { Logger } from 'pino';
import { createBatchWriter } from '../db/batch-writer.js';
import type { Queryable } from '../db/database.js';
import type { LedgerEntry } from '../llm/ledger.js';
import type { UsageStore } from '../usage/usage-store.js';

export interface TraceRow {
  runId: string;
  orgId: string;
  kind: string;
  candidateId: string | null;
  /** The row's JSON, or a function that makes it, called when the row is written rather than when it is handed over. */
  data: unknown;
  /** When it happened, not when the batch was written. */
  at: Date;
}

/** Many audit-trail rows in one statement, in the order given (ids follow it). */
export async function insertTraceRows(db: Queryable, rows: TraceRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO run_trace (run_id, org_id, kind, candidate_id, data, at)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::jsonb[], $6::timestamptz[])`,
    [
      rows.map((r) => r.runId),
      rows.map((r) => r.orgId),
      rows.map((r) => r.kind),
      rows.map((r) => r.candidateId),
      rows.map((r) => JSON.stringify(typeof r.data === 'function' ? (r.data as () => unknown)() : r.data)),
      rows.map((r) => r.at),
    ],
  );
}

// Rows wait this long for company, so a run's next statements (checkpoint, retrieval, candidate reads: tens
// of milliseconds on the embedded database) go first and the rows are written while the run waits on its
// next model calls, which take longer than this.
const LINGER_MS = 150;

export function createJournal(deps: { db: Queryable; usage: Pick<UsageStore, 'recordMany'>; logger: Pick<Logger, 'error'> }) {
  const ledger = createBatchWriter<LedgerEntry & { at: Date }>({
    lingerMs: LINGER_MS,
    writeBatch: (rows) => deps.usage.recordMany(rows),
    // The answer was paid for and used: the gap in the ledger must be loud, with everything needed to repair it.
    onLost: (err, entry) => deps.logger.error({ err, entry }, 'ledger write failed'),
  });
  const trail = createBatchWriter<TraceRow>({
    lingerMs: LINGER_MS,
    writeBatch: (rows) => insertTraceRows(deps.db, rows),
    onLost: (err, row) => deps.logger.error({ err, runId: row.runId, kind: row.kind, candidateId: row.candidateId }, 'audit trail write failed'),
  });

  return {
    /** The LedgerSink the model layer writes to: returns at once, the row follows. */
    async record(entry: LedgerEntry): Promise<void> {
      ledger.add({ ...entry, at: new Date() });
    },
    trace(run: { runId: string; orgId: string }, kind: string, data: unknown, candidateId: string | null = null): void {
      trail.add({ runId: run.runId, orgId: run.orgId, kind, candidateId, data, at: new Date() });
    },
    /** Every row handed over before this call is written (or was reported lost). */
    async flush(): Promise<void> {
      await Promise.all([ledger.flush(), trail.flush()]);
    },
    get backlog(): number {
      return ledger.backlog + trail.backlog;
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
