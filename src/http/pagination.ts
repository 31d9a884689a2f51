// Keyset cursors for lists ordered by (created_at DESC, id DESC): opaque to clients, validated on the way in.
import { z } from 'zod';
import { BadRequestError } from '../errors.js';
import { queryInteger } from './schemas.js';

// Strict, like every body: a misspelt parameter (?stauts=, ?limit[]=) is a 400 naming it, never quietly ignored.
export const PageQuerySchema = z
  .object({
    limit: queryInteger(1, 100).default(20).describe('Page size, 1..100.'),
    cursor: z.string().max(200).optional().describe('The nextCursor of the previous page.'),
  })
  .strict();

export interface Keyset {
  createdAt: string;
  id: string;
}

const KeysetSchema = z.object({ t: z.iso.datetime({ offset: true }), i: z.uuid() }).strict();

export function encodeCursor(k: Keyset): string {
  return Buffer.from(JSON.stringify({ t: k.createdAt, i: k.id })).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Keyset | null {
  if (cursor === undefined) return null;
  try {
    const parsed = KeysetSchema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    // A forged cursor can hold an ISO date PostgreSQL refuses (year 0000, offset +23:59): that would be a 500.
    // Ours are always UTC within years 1..9999, so anything else was not issued here.
    const createdAt = new Date(parsed.t);
    const year = createdAt.getUTCFullYear();
    if (!(year >= 1 && year <= 9999)) throw new RangeError('cursor time out of range');
    return { createdAt: createdAt.toISOString(), id: parsed.i };
  } catch {
    throw new BadRequestError('The cursor is not one this service issued.', [{ path: 'querystring.cursor', message: 'invalid cursor' }]);
  }
}

/** Given limit+1 rows, the page and the cursor of the next one. */
export function pageOf<T extends { createdAt: Date | string; id: string }>(rows: T[], limit: number) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit && last
      ? encodeCursor({ createdAt: new Date(last.createdAt).toISOString(), id: last.id })
      : null;
  return { items, nextCursor };
}

/**
 * A cursor of a list ordered by a number that only grows (an event's seq, a trail row's id): that number's digits, up
 * to `max`, as text (a bigint may pass 2^53). Anything else was not issued here.
 */
export function decodeSequenceCursor(cursor: string, max: bigint): string {
  if (!/^\d+$/.test(cursor) || cursor.length > String(max).length || BigInt(cursor) > max) {
    throw new BadRequestError('The cursor is not one this service issued.', [{ path: 'querystring.cursor', message: 'invalid cursor' }]);
  }
  return cursor;
}

/** Given limit+1 rows in sequence order, the page and the cursor of the next one (the last row's number). */
export function sequencePageOf<T>(rows: T[], limit: number, numberOf: (row: T) => number | string) {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? String(numberOf(last)) : null };
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}
