// Where a process's time goes during a measurement: event-loop utilisation, CPU, and embedded-database busy time.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Database } from '../../src/db/database.js';

export interface ProbeMark {
  at: number;
  elu: EventLoopUtilization;
  cpu: NodeJS.CpuUsage;
  dbBusyMs: number;
  walLsn: string;
}

export interface ProbeReport {
  wallMs: number;
  /** Share of the wall clock the JS thread was busy (the embedded PGlite runs in a thread of its own). */
  eventLoopUtilisation: number;
  /** Process CPU time (all threads) over the wall clock. */
  cpuShare: number;
  /** Time the embedded database spent executing wire-protocol messages (one at a time); null with DATABASE_URL. */
  dbBusyMs: number | null;
  /** Write-ahead log the database wrote (every process's work on it, not only this one's). */
  walBytes: number;
}

/**
 * Marks and measures since a mark. The embedded database's busy time is counted in its own thread (around each
 * wire-protocol message it executes) and asked for, so mark() and since() are async; the other figures are
 * read first, at the moment they are called.
 */
export function probe(db: Database) {
  const embedded = db.embedded;
  const dbBusyMs = async () => (embedded ? embedded.busyMs() : 0);
  const walLsn = async () => (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
  return {
    async mark(): Promise<ProbeMark> {
      const mark = { at: performance.now(), elu: performance.eventLoopUtilization(), cpu: process.cpuUsage() };
      return { ...mark, dbBusyMs: await dbBusyMs(), walLsn: await walLsn() };
    },
    async since(mark: ProbeMark): Promise<ProbeReport> {
      const wallMs = performance.now() - mark.at;
      const cpu = process.cpuUsage(mark.cpu);
      const elu = performance.eventLoopUtilization(mark.elu).utilization;
      return {
        wallMs,
        eventLoopUtilisation: elu,
        cpuShare: (cpu.user + cpu.system) / 1000 / wallMs,
        dbBusyMs: embedded ? (await dbBusyMs()) - mark.dbBusyMs : null,
        walBytes: (await db.query<{ bytes: number }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::bigint AS bytes', [mark.walLsn])).rows[0]!.bytes,
      };
    },
  };
}

export function probeRows(r: ProbeReport): Array<[string, number | string]> {
  return [
    ['event-loop utilisation (JS thread busy share)', r.eventLoopUtilisation],
    ['process CPU / wall (all threads)', r.cpuShare],
    ['embedded database busy share (one query at a time)', r.dbBusyMs === null ? 'n/a' : r.dbBusyMs / r.wallMs],
    ['write-ahead log written, MB', r.walBytes / 1e6],
  ];
}
