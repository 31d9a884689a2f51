// One PGlite shared by many wire-protocol connections (pglite-socket): what makes that safe. Used by the embedded
// database's thread, and by tests that serve a PGlite of their own (one they can stop and start under a pool).
import { performance } from 'node:perf_hooks';
import type { PGlite } from '@electric-sql/pglite';

// Wire-protocol message types that end an extended-protocol sequence (Sync), or stand alone (Query, Terminate).
const SEQUENCE_END = new Set(['S'.charCodeAt(0), 'Q'.charCodeAt(0), 'X'.charCodeAt(0)]);
const SEQUENCE_PART = new Set(['P', 'B', 'D', 'E', 'C', 'H', 'F'].map((c) => c.charCodeAt(0)));

const ERROR_RESPONSE = 'E'.charCodeAt(0);
// An ErrorResponse's non-localised severity field: "V", "PANIC", its terminating zero. A field starts after the zero
// ending the one before it; a text value of a data row holds no zero byte, so only an ErrorResponse's field can match.
const PANIC_FIELD = Buffer.from('\0VPANIC\0', 'latin1');

/**
 * The message of an ErrorResponse whose severity is PANIC among these backend messages, or null. PGlite hands the
 * answer over in chunks of 8 KB that may start inside a message: a chunk whose messages cannot be walked from its
 * start still tells a PANIC by its field.
 */
export function panicIn(data: Uint8Array): string | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const at = bytes.indexOf(PANIC_FIELD);
  if (at < 0) return null;
  // Walk the messages to the ErrorResponse that holds it, and read its "M" (message) field.
  for (let i = 0; i + 5 <= bytes.length; ) {
    const length = bytes.readInt32BE(i + 1);
    if (length < 4) return 'severity PANIC';
    const end = Math.min(bytes.length, i + 1 + length);
    if (bytes[i] === ERROR_RESPONSE && at >= i && at < end) {
      for (let f = i + 5; f < end && bytes[f] !== 0; ) {
        const stop = bytes.indexOf(0, f + 1);
        if (stop < 0 || stop >= end) break;
        if (bytes[f] === 'M'.charCodeAt(0)) return bytes.toString('utf8', f + 1, stop);
        f = stop + 1;
      }
      return 'severity PANIC';
    }
    i = end;
  }
  return 'severity PANIC';
}

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
          // A PANIC comes as an answer, not a throw (a log write that found the disk full: "could not write to log
          // file"), and leaves PGlite inside the transaction it broke, with no ReadyForQuery: the queue serves that
          // connection alone, whose ROLLBACK never returns, and every other statement waits for good.
          // The last bytes of each chunk go before the next: a field cut between two chunks is still found.
          let tail: Uint8Array = new Uint8Array(0);
          const watched = opts && onFailure
            ? {
                ...opts,
                onRawData: (data: Uint8Array) => {
                  opts.onRawData(data);
                  const across = tail.length > 0 && Buffer.concat([tail, data.subarray(0, PANIC_FIELD.length - 1)]).includes(PANIC_FIELD);
                  // A copy: PGlite may reuse the chunk's memory for the next.
                  tail = data.slice(Math.max(0, data.length - (PANIC_FIELD.length - 1)));
                  const panic = panicIn(data) ?? (across ? 'severity PANIC' : null);
                  if (panic !== null) onFailure(new Error(`PANIC: ${panic}`));
                },
              }
            : opts;
          try {
            return target.execProtocolRawStream(message, watched).catch(failed);
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
