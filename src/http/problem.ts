// RFC 9457 problem documents: the one shape of every error answer, and its schema for OpenAPI.
import { z } from 'zod';
import type { FieldError } from '../errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'An RFC 9457 problem document.' });

export type Problem = z.infer<typeof ProblemSchema>;

export function problem(status: number, code: string, title: string, detail: string, errors?: FieldError[]): Problem {
  return { type: `https://talent-matcher.dev/problems/${code}`, title, status, detail, ...(errors?.length ? { errors } : {}) };
}

/**
 * The error answers every /v1 route may give, for the OpenAPI document (503 while shutting down, 413 and 415 of a
 * body: src/http/openapi.ts). A route adds the ones only it gives: 404 naming a resource by id, 429 under a limit.
 */
export const standardErrors = {
  400: ProblemSchema,
  401: ProblemSchema,
} as const;

/** The route names a resource (by id in its path or body) that may not exist. */
export const notFound = { 404: ProblemSchema } as const;

/** The route counts against a per-key rate limit (or another cap that answers 429). */
export const limited = { 429: ProblemSchema } as const;
