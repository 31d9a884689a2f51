// The journal: model-call ledger rows and audit-trail rows, written behind the work they record.
// A model answer, a step or a scored candidate never waits for its row; rows are written in batches as
// fast as the database takes them (see createBatchWriter), and a run is finished only after flush().
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createBatchWriter } from '../db/batch-writer.js';
import { databaseOutage, type Database, type Queryable } from '../db/database.js';
import type { LedgerEntry } from '../llm/ledger.js';
import { storableJsonText } from '../text/storable.js';
import { ledgerInsertSql } from '../usage/usage-store.js';

export interface TraceRow {
  runId: string;
  orgId: string;
  kind: string;
  candidateId: string | null;
  /** The row's JSON, or a function that makes it, called when the row is written rather than when it is handed over. */
  data: unknown;
  /** When it happened, not when the batch was written. */
  at: Date;
  /**
   * The row's identity: a batch tried again after it had in fact been written (its answer lost) adds nothing. Looked
   * for among the rows of the batch's runs (one batch is written at a time, so no two sends of a row race).
   */
  entryId: string;
}

/**
 * The INSERT of audit-trail rows, in the order given (ids follow it), its parameters appended to values. A row is
 * written behind its work, which may outlive an erasure of its candidate (a scorer's answer arriving afterwards):
 * one the erasure would have redacted, had it been written, is written redacted (see candidateStore.erase). Whether
 * a candidate is still there is read under a key-share lock of its row (the `live` expression, which the statement
 * names first), as the shortlist's writes read it: an erasure that has deleted the row is waited for, and the row
 * then counts as gone; one that comes later waits for this statement, and then redacts what it wrote. Without the
 * lock, an erasure that committed while the statement ran (on PostgreSQL, where both run at once) found no rows to
 * redact, and the statement, reading the candidate as it was when it began, wrote them in full.
 */
function traceSql(rows: TraceRow[], values: unknown[]): { live: string; insert: string } {
  const param = (column: unknown[], type: string) => `$${values.push(column)}::${type}[]`;
  const data = rows.map((r) => (typeof r.data === 'function' ? (r.data as () => unknown)() : r.data));
  const named = new Set<string>();
  rows.forEach((r, i) => {
    if (r.candidateId) named.add(r.candidateId);
    const ids = r.kind === 'model.exchange' ? (data[i] as { candidateIds?: unknown } | null)?.candidateIds : undefined;
    if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') named.add(id);
  });
  // In id order, as concurrent statements then take the same locks in the same order.
  const live = `live AS (SELECT id FROM candidates WHERE id = ANY(${param([...named].sort(), 'uuid')}) ORDER BY id FOR KEY SHARE)`;
  const gone = (id: string) => `${id} NOT IN (SELECT id FROM live)`;
  const insert = `INSERT INTO run_trace (run_id, org_id, kind, candidate_id, data, at, entry_id)
     SELECT t.run_id, t.org_id, t.kind, t.candidate_id,
            CASE WHEN (t.candidate_id IS NOT NULL AND ${gone('t.candidate_id')})
                   OR (t.kind = 'model.exchange'
                       AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(t.data -> 'candidateIds') x(id) WHERE ${gone('x.id::uuid')}))
                 THEN '{"erased": true}'::jsonb ELSE t.data END,
            t.at, t.entry_id
     FROM unnest(${[
       param(rows.map((r) => r.runId), 'uuid'),
       param(rows.map((r) => r.orgId), 'uuid'),
       param(rows.map((r) => r.kind), 'text'),
       param(rows.map((r) => r.candidateId), 'uuid'),
       param(data.map((d) => storableJsonText(d)), 'jsonb'),
       param(rows.map((r) => r.at), 'timestamptz'),
       param(rows.map((r) => r.entryId), 'uuid'),
     ].join(', ')}) AS t(run_id, org_id, kind, candidate_id, data, at, entry_id)
     WHERE t.entry_id NOT IN (SELECT w.entry_id FROM run_trace w
                              WHERE w.run_id = ANY(${param([...new Set(rows.map((r) => r.runId))], 'uuid')}) AND w.entry_id IS NOT NULL)`;
  return { live, insert };
}

type LedgerItem = LedgerEntry & { at: Date; entryId: string };
/** One row of either kind; a batch writes both kinds in one statement. */
type JournalRow = { ledger: LedgerItem; trail?: never } | { trail: TraceRow; ledger?: never };

/**
 * Ledger and trail rows of a batch in one statement: the ledger's (which also moves each run's totals) with the trail's
 * INSERT as one more common table expression. On the embedded database a statement costs a round trip through the
 * socket server and a turn in the one queue, whatever it carries; the rows of a batch arrive together.
 */
async function writeJournalRows(db: JournalDatabase, rows: JournalRow[]): Promise<void> {
  const ledger = rows.flatMap((r) => (r.ledger ? [r.ledger] : []));
  const trail = rows.flatMap((r) => (r.trail ? [r.trail] : []));
  const values: unknown[] = [];
  // Ledger rows alone: their unique entry ids make a second send of the batch a no-op.
  if (!trail.length) return void (await db.query(ledgerInsertSql(ledger, values), values));
  const { live, insert } = traceSql(trail, values);
  // The candidates' locks are taken before the runs' (the ledger moves their totals), as an erasure takes them: one
  // waiting for a run this statement holds while this statement waits for its candidate would be a deadlock.
  const statement = ledger.length ? ledgerInsertSql(ledger, values, [live, `trail AS (${insert})`], 'live') : `WITH ${live} ${insert}`;
  if (db.kind !== 'postgres' || !db.withTransaction) return void (await db.query(statement, values));
  // On PostgreSQL a batch sent again after its connection was cut may meet its first send still running there (waiting
  // for a candidate's row, say), which then commits: the trail rows' check (entry ids not yet in the runs' trails)
  // read before that commit, and both sends wrote them. Each send first takes its runs' locks, in id order, in a
  // transaction of its own: the second waits for the first to end, and its statement then sees what the first wrote.
  // (The embedded database runs one statement at a time: no send is still running when another arrives.)
  const runIds = [...new Set(trail.map((r) => r.runId))].sort();
  await db.withTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7242415, hashtext(u.id::text)) FROM unnest($1::uuid[]) WITH ORDINALITY AS u(id, n)', [runIds]);
    await tx.query(statement, values);
  });
}

/** What the journal writes through: a database that, on PostgreSQL, also opens transactions (writeJournalRows). */
type JournalDatabase = Queryable & Partial<Pick<Database, 'kind' | 'withTransaction'>>;

// A database restart or failover takes seconds to tens of seconds: rows wait it out, in memory, rather than be lost.
const OUTAGE_WAIT_MS = 60_000;

// Rows wait this long for company, so a run's next statements (checkpoint, retrieval, candidate reads: tens
// of milliseconds on the embedded database) go first and the rows are written while the run waits on its
// next model calls, which take longer than this.
const LINGER_MS = 150;

export function createJournal(deps: { db: JournalDatabase; logger: Pick<Logger, 'error'> }) {
  const writer = createBatchWriter<JournalRow>({
    lingerMs: LINGER_MS,
    writeBatch: (rows) => writeJournalRows(deps.db, rows),
    // A batch committed whose answer was lost is not charged twice when tried again: each ledger row has its entryId.
    outage: { is: databaseOutage, waitMs: OUTAGE_WAIT_MS },
    // A batch that keeps failing is written row by row, so a bad row loses only itself, and each loss is loud.
    onLost: (err, row) => {
      // The answer was paid for and used: the gap in the ledger must be loud, with everything needed to repair it.
      if (row.ledger) deps.logger.error({ err, entry: row.ledger }, 'ledger write failed');
      else deps.logger.error({ err, runId: row.trail.runId, kind: row.trail.kind, candidateId: row.trail.candidateId }, 'audit trail write failed');
    },
  });

  return {
    /** The LedgerSink the model layer writes to: returns at once, the row follows. */
    async record(entry: LedgerEntry): Promise<void> {
      // The id makes a retried batch that had in fact been written (its answer lost) a no-op rather than a second charge.
      writer.add({ ledger: { ...entry, at: new Date(), entryId: randomUUID() } });
    },
    trace(run: { runId: string; orgId: string }, kind: string, data: unknown, candidateId: string | null = null): void {
      writer.add({ trail: { runId: run.runId, orgId: run.orgId, kind, candidateId, data, at: new Date(), entryId: randomUUID() } });
    },
    /** Every row handed over before this call is written (or was reported lost). */
    async flush(): Promise<void> {
      await writer.flush();
    },
    get backlog(): number {
      return writer.backlog;
    },
    /** A process shutting down: rows the database cannot take now are reported lost, not waited on. */
    stopWaiting(): void {
      writer.stopWaiting();
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;
