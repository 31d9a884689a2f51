// Where a process's time goes during a measurement: event-loop utilisation, CPU, and embedded-database busy time.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Database } from '../../src/db/database.js';

export interface ProbeMark {
  at: number;
  elu: EventLoopUtilization;
  cpu: NodeJS.CpuUsage;
  dbBusyMs: number;
}

export interface ProbeReport {
  wallMs: number;
  /** Share of the wall clock the JS thread was busy (PGlite runs on it too). */
  eventLoopUtilisation: number;
  /** Process CPU time (all threads) over the wall clock. */
  cpuShare: number;
  /** Time the embedded database spent executing wire-protocol messages (one at a time); null with DATABASE_URL. */
  dbBusyMs: number | null;
}

/** Wraps the embedded PGlite's mutex so the time spent inside it is counted; the wrapped call is otherwise unchanged. */
export function probe(db: Database) {
  let dbBusyMs = 0;
  const pglite = db.embedded?.pglite;
  if (pglite) {
    const original = pglite.runExclusive.bind(pglite);
    pglite.runExclusive = <T>(fn: () => Promise<T> | T): Promise<T> =>
      original(async () => {
        const started = performance.now();
        try {
          return await fn();
        } finally {
          dbBusyMs += performance.now() - started;
        }
      });
  }
  return {
    mark(): ProbeMark {
      return { at: performance.now(), elu: performance.eventLoopUtilization(), cpu: process.cpuUsage(), dbBusyMs };
    },
    since(mark: ProbeMark): ProbeReport {
      const wallMs = performance.now() - mark.at;
      const cpu = process.cpuUsage(mark.cpu);
      return {
        wallMs,
        eventLoopUtilisation: performance.eventLoopUtilization(mark.elu).utilization,
        cpuShare: (cpu.user + cpu.system) / 1000 / wallMs,
        dbBusyMs: pglite ? dbBusyMs - mark.dbBusyMs : null,
      };
    },
  };
}

export function probeRows(r: ProbeReport): Array<[string, number | string]> {
  return [
    ['event-loop utilisation (JS thread busy share)', r.eventLoopUtilisation],
    ['process CPU / wall (all threads)', r.cpuShare],
    ['embedded database busy share (one query at a time)', r.dbBusyMs === null ? 'n/a' : r.dbBusyMs / r.wallMs],
  ];
}
