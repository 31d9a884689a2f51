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

/** Standard error answers every /v1 route may give, for the OpenAPI document. */
export const standardErrors = {
  400: ProblemSchema,
  401: ProblemSchema,
  404: ProblemSchema,
  429: ProblemSchema,
} as const;
