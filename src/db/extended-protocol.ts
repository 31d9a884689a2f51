// One PGlite shared by many wire-protocol connections (pglite-socket): what makes that safe. Used by the embedded
// database's thread, and by tests that serve a PGlite of their own (one they can stop and start under a pool).
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';

// Wire-protocol message types that end an extended-protocol sequence (Sync), or stand alone (Query, Terminate).
const SEQUENCE_END = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0), 'X'.charCodeAt(0)]);
const SEQUENCE_PART = new Set(['P', 'B', 'D', 'E', 'C', 'H', 'F'].map((c) => c.charCodeAt(0)));

/**
 * pglite-socket interleaves messages of different connections one by one, unless PGlite is inside
 * a transaction. The extended protocol (Parse, Bind, Execute ... Sync) is a sequence too: another
 * connection's Parse between our Parse and Bind replaces the unnamed statement ("bind message
 * supplies 5 parameters, but prepared statement requires 1"). So an open sequence is reported as
 * an open transaction, which makes the socket server serve that connection alone until its Sync.
 * A connection that dies mid-sequence is cleaned up by the server's ROLLBACK, which also ends it.
 * The socket server runs every message inside runExclusive: the time spent there is added to busy.ms.
 *
 * PGlite answers a statement's errors in the protocol stream; a message that throws instead (a WebAssembly abort,
 * memory that could not grow) leaves PGlite unusable, and the socket server's queue stops there for good: it rejects
 * that message and never clears its busy flag, so every later statement waits forever. onFailure hears of it, so
 * that the database's owner can end it (embedded-thread.ts) instead of hanging.
 */
export function extendedProtocolAware(pglite: PGlite, busy: { ms: number }, onFailure?: (err: unknown) => void): PGlite {
  let sequenceOpen = false;
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'isInTransaction') return () => sequenceOpen || target.isInTransaction();
      if (prop === 'execProtocolRawStream') {
        return (message: Uint8Array, opts: Parameters<PGlite['execProtocolRawStream']>[1]) => {
          const type = message[0]!;
          if (SEQUENCE_PART.has(type)) sequenceOpen = true;
          else if (SEQUENCE_END.has(type)) sequenceOpen = false;
          const failed = (err: unknown): never => {
            onFailure?.(err);
            throw err;
          };
          try {
            return target.execProtocolRawStream(message, opts).catch(failed);
          } catch (err) {
            return failed(err);
          }
        };
      }
      if (prop === 'exec') {
        return async (query: string, opts?: Parameters<PGlite['exec']>[1]) => {
          if (/^\s*ROLLBACK\s*$/i.test(query)) {
            sequenceOpen = false;
            if (!target.isInTransaction()) return [];
          }
          return target.exec(query, opts);
        };
      }
      if (prop === 'runExclusive') {
        return <T>(fn: () => Promise<T>): Promise<T> =>
          target.runExclusive(async () => {
            const started = performance.now();
            try {
              return await fn();
            } finally {
              busy.ms += performance.now() - started;
            }
          });
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
