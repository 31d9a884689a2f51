// The candidate resource as the HTTP contract defines it.
import { z } from 'zod';
import { SkillList, Timestamp, optional, requiredText, text } from '../http/schemas.js';

export const MAX_CANDIDATES_PER_REQUEST = 500;
// 500 candidates of up to 100,000 plain ASCII characters each fit (multi-byte or escaped text takes more bytes, and
// the 413 says to send smaller batches); every other route stays at 1 MiB.
export const CANDIDATE_BODY_LIMIT = 64 * 1024 * 1024;

export const CandidateInputSchema = z
  .object({
    externalId: requiredText(1, 200).describe('Your id for this candidate; upserts are keyed by it.'),
    // Optional fields: null is left out, which an upsert clears (see optional).
    name: optional(text(1, 300)).describe('PII: returned only by candidate routes.'),
    email: optional(text(3, 320)).describe('PII: returned only by candidate routes.'),
    phone: optional(text(3, 50)).describe('PII: returned only by candidate routes.'),
    headline: optional(text(0, 300)),
    location: optional(text(0, 200)),
    // Stored as a real: PostgreSQL refuses a non-zero number that rounds to 0 there (1e-320), and it would do so only
    // in the write, after the batch was embedded (and paid for) and without naming the item.
    yearsExperience: optional(
      z
        .number()
        .min(0)
        .max(70)
        .refine((v) => v === 0 || Math.fround(v) !== 0, { message: 'is too small to store: send 0 or a value of at least 1e-45' }),
    ),
    skills: optional(SkillList).describe('Extracted from the resume when absent.'),
    resume: requiredText(1, 100_000).describe('Markdown or plain text.'),
  })
  .strict();

export type CandidateInput = z.infer<typeof CandidateInputSchema>;

export const UpsertCandidatesBodySchema = z
  .object({ candidates: z.array(CandidateInputSchema).min(1).max(MAX_CANDIDATES_PER_REQUEST) })
  .strict()
  .superRefine((body, ctx) => {
    // Two items with one externalId would silently overwrite each other: refuse the batch instead.
    const first = new Map<string, number>();
    body.candidates.forEach((c, i) => {
      const earlier = first.get(c.externalId);
      if (earlier === undefined) first.set(c.externalId, i);
      else ctx.addIssue({ code: 'custom', path: ['candidates', i, 'externalId'], message: `duplicates candidates.${earlier}.externalId` });
    });
  });

export const UpsertStatus = z.enum(['created', 'updated', 'unchanged']);
export type UpsertStatus = z.infer<typeof UpsertStatus>;

export const UpsertCandidatesResponseSchema = z.object({
  items: z.array(z.object({ externalId: z.string(), id: z.uuid(), status: UpsertStatus })),
});

export const CandidateSchema = z
  .object({
    id: z.uuid(),
    externalId: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    headline: z.string().nullable(),
    location: z.string().nullable(),
    yearsExperience: z.number().nullable(),
    skills: z.array(z.string()),
    resume: z.string(),
    embeddingModel: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Candidate' });

export type Candidate = z.infer<typeof CandidateSchema>;

export const CandidateSummarySchema = CandidateSchema.omit({ resume: true }).meta({ id: 'CandidateSummary' });
export type CandidateSummary = z.infer<typeof CandidateSummarySchema>;
