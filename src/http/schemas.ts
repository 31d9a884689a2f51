// Building blocks shared by the route schemas: safe text, ids, and timestamps.
import { z } from 'zod';

/** Text that PostgreSQL can store: no NUL characters, bounded length. */
export function text(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !s.includes('\u0000'), { message: 'must not contain NUL characters' });
}

export const IdParamsSchema = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

export const Timestamp = z.iso.datetime().describe('ISO-8601 UTC timestamp');

export const SkillList = z.array(text(1, 100)).max(100);

export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}
