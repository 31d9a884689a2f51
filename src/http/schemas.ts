// Building blocks shared by the route schemas: safe text, ids, and timestamps.
import { z } from 'zod';
import { LONE_SURROGATE } from '../text/storable.js';

// A lone UTF-16 surrogate ("\ud800" in JSON) is not text: PostgreSQL refuses it inside jsonb and silently
// replaces it elsewhere, so one field would answer 400 without a path and another would store U+FFFD.

/** Text that PostgreSQL can store: no NUL characters, no lone surrogates, bounded length. */
export function text(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .refine((s) => !s.includes('\u0000'), { message: 'must not contain NUL characters' })
    .refine((s) => !LONE_SURROGATE.test(s), { message: 'must be valid Unicode text (a lone surrogate escape was sent)' });
}

/**
 * A required text (a role's title and description, a resume, an external id), which must hold more than whitespace:
 * a role titled " " or a resume of line breaks is as empty as none, and ran to a shortlist that meant nothing.
 */
export function requiredText(min: number, max: number) {
  // An empty one is refused by its minimum length already: one message for it, not two.
  return text(min, max).refine((s) => s.length === 0 || /\S/u.test(s), { message: 'must not be only whitespace' });
}

/**
 * An optional field of a request body. Left out or sent as JSON null it has no value (the parsed body holds
 * undefined): many clients' serializers write null for a field without one, and our answers carry null for such a
 * field. Nothing is updated in place (an upsert replaces the whole candidate, a role and a run's parameters are set
 * once), so null has no meaning of its own to keep apart from "left out".
 */
export function optional<T extends z.ZodType>(schema: T) {
  return schema
    .nullish()
    .transform((v) => v ?? undefined)
    .optional();
}

/** A request field with a default, taken when the field is left out or sent as null (see optional). */
export function withDefault<T extends z.ZodType>(schema: T, value: z.util.NoUndefined<z.output<T>>) {
  return schema
    .nullable()
    .default(value)
    .transform((v) => v ?? value);
}

/**
 * A whole number in a query string, in decimal digits only: z.coerce.number() took what Number() takes, so
 * ?limit=0x10 was 16, ?limit=1e1 was 10, and ?after=%20 (a space) was 0.
 */
export function queryInteger(min: number, max: number) {
  return (
    z
      .string()
      .regex(/^[0-9]{1,12}$/, { message: 'must be a whole number in decimal digits' })
      .pipe(z.coerce.number<string>().int().min(min).max(max))
      // The OpenAPI document describes what a client sends: a whole number in its bounds, not the string it arrives as.
      .meta({ type: 'integer', minimum: min, maximum: max, pattern: undefined })
  );
}

export const IdParamsSchema = z.object({ id: z.uuid({ message: 'must be a UUID' }) });

export const Timestamp = z.iso.datetime().describe('ISO-8601 UTC timestamp');

export const SkillList = z.array(text(1, 100)).max(100);

export function iso(d: Date | string | null): string | null {
  return d === null ? null : new Date(d).toISOString();
}
