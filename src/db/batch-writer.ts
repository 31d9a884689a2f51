// Write-behind with group commit: rows are handed over without waiting, and written together, one batch
// at a time, as soon as the previous batch is done. Whoever needs them durable awaits flush().
//
// Used for rows that record work rather than decide it (the model-call ledger, the audit trail): a
// model answer need not wait for its ledger row, but a run is not finished before its rows are written.

/** How often a write the database refused for an outage is tried again, unless told otherwise. */
export const OUTAGE_RETRY_MS = 500;

export interface BatchWriterOptions<T> {
  /** Writes a batch in one statement; throws if nothing was written. */
  writeBatch(items: T[]): Promise<void>;
  /** Called with the items of a batch that could not be written after the retries, one item at a time. */
  onLost(err: unknown, item: T): void;
  maxBatch?: number;
  /** Further attempts of a failed batch before it is written item by item (so one bad row loses only itself). */
  retries?: number;
  retryDelayMs?: number;
  /**
   * How long the first row of a batch waits for company before the write starts (flush() ends the wait).
   * Rows are produced when model answers arrive, which is also when the run's own next statements are
   * due; waiting lets those go first and writes the rows while the run waits on its next model calls.
   */
  lingerMs?: number;
  /**
   * Failures that say the database is away (a restart, a failover), not that the rows are bad: a batch failing so is
   * tried again, at most every retryMs, for up to waitMs before it counts as failed, so that an outage of seconds
   * loses no row. stopWaiting() ends the waits (a process shutting down).
   */
  outage?: { is(err: unknown): boolean; waitMs: number; retryMs?: number };
}

export interface BatchWriter<T> {
  add(item: T): void;
  /** Resolves once every item added before this call is written (or reported lost). Never rejects. */
  flush(): Promise<void>;
  /** Items added and not yet written. */
  readonly backlog: number;
  /** From now on an outage is not waited out: what cannot be written is reported lost (shutdown). */
  stopWaiting(): void;
}

export function createBatchWriter<T>(opts: BatchWriterOptions<T>): BatchWriter<T> {
  const maxBatch = opts.maxBatch ?? 500;
  const retries = opts.retries ?? 2;
  const retryDelayMs = opts.retryDelayMs ?? 50;
  const lingerMs = opts.lingerMs ?? 0;
  let queue: T[] = [];
  let lingering: NodeJS.Timeout | null = null;
  let added = 0;
  let settled = 0;
  let draining = false;
  const waiters: Array<{ upTo: number; resolve: () => void }> = [];

  let waitOutages = true;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  async function write(batch: T[]): Promise<void> {
    let lastError: unknown;
    let outageSince: number | null = null;
    for (let attempt = 0; attempt <= retries; attempt++) {
      try {
        await opts.writeBatch(batch);
        return;
      } catch (err) {
        lastError = err;
        if (opts.outage?.is(err)) {
          outageSince ??= Date.now();
          if (waitOutages && Date.now() - outageSince < opts.outage.waitMs) {
            // Not an attempt: the rows were not refused, the database was not there.
            attempt--;
            await sleep(opts.outage.retryMs ?? OUTAGE_RETRY_MS);
            continue;
          }
          // Waited out (or a shutdown stopped waiting): the rows are lost together. Writing them again, or one by one,
          // would only wait on a database that is not there, a connection timeout at a time, past any shutdown's grace.
          for (const item of batch) opts.onLost(err, item);
          return;
        }
        if (attempt < retries) await sleep(retryDelayMs * (attempt + 1));
      }
    }
    if (batch.length === 1) return opts.onLost(lastError, batch[0]!);
    for (const item of batch) {
      try {
        await opts.writeBatch([item]);
      } catch (err) {
        opts.onLost(err, item);
      }
    }
  }

  async function drain(): Promise<void> {
    try {
      while (queue.length) {
        const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
        queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
        await write(batch);
        settled += batch.length;
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (waiters[i]!.upTo <= settled) waiters.splice(i, 1)[0]!.resolve();
        }
      }
    } finally {
      draining = false;
    }
  }

  function startDrain(): void {
    if (lingering) clearTimeout(lingering);
    lingering = null;
    draining = true;
    void drain();
  }

  return {
    add(item: T): void {
      queue.push(item);
      added++;
      if (draining || lingering) return;
      // Rows added in the same turn of the event loop (fifteen scorers answering together) share a batch.
      lingering = setTimeout(startDrain, lingerMs);
    },
    flush(): Promise<void> {
      if (settled >= added) return Promise.resolve();
      const upTo = added;
      const done = new Promise<void>((resolve) => waiters.push({ upTo, resolve }));
      if (lingering) startDrain();
      return done;
    },
    get backlog() {
      return added - settled;
    },
    stopWaiting() {
      waitOutages = false;
    },
  };
}
