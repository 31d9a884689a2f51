// The matching-run resource as the HTTP contract defines it.
import { z } from 'zod';
import { Timestamp, optional, queryInteger, text, withDefault } from '../http/schemas.js';
import { ENGINES, SUBSCORE_BOUNDS } from '../matching/domain.js';
import { RoleInputSchema } from '../roles/role-schemas.js';

export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const FINISHED_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];

export const STOP_REASONS = ['target_reached', 'reflector', 'max_iterations', 'budget', 'exhausted', 'cancelled', 'error'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

const maxIterations = z.number().int().min(1).max(10);
const scoreThreshold = z.number().int().min(0).max(100);
const targetStrong = z.number().int().min(1).max(100);
const scoreLimit = z.number().int().min(1).max(50);
const maxTokens = z.number().int().min(1000).max(50_000_000);
const maxCostUsd = z.number().min(0).max(1000);
const DEFAULT_BUDGET = { maxTokens: 200_000, maxCostUsd: 2 };
const DESCRIBED = {
  scoreThreshold: 'A "strong" candidate scores at least this.',
  targetStrong: 'Stop once this many strong candidates are found.',
  scoreLimit: 'Candidates scored per iteration.',
};

/** A run's parameters as a request gives them: each may be left out or null, and then takes its default. */
export const RunParamsSchema = z.object({
  maxIterations: withDefault(maxIterations, 3),
  scoreThreshold: withDefault(scoreThreshold, 70).describe(DESCRIBED.scoreThreshold),
  targetStrong: withDefault(targetStrong, 5).describe(DESCRIBED.targetStrong),
  scoreLimit: withDefault(scoreLimit, 15).describe(DESCRIBED.scoreLimit),
  // A null budget, or a null limit in one, takes the default as withDefault does, in one transform: a transform inside
  // the budget's object would drop the budget's default from the OpenAPI document (zod omits a default over one).
  budget: z
    .object({
      maxTokens: maxTokens.nullable().default(DEFAULT_BUDGET.maxTokens),
      maxCostUsd: maxCostUsd.nullable().default(DEFAULT_BUDGET.maxCostUsd),
    })
    .strict()
    .nullable()
    .default(DEFAULT_BUDGET)
    .transform((b) => ({ maxTokens: b?.maxTokens ?? DEFAULT_BUDGET.maxTokens, maxCostUsd: b?.maxCostUsd ?? DEFAULT_BUDGET.maxCostUsd })),
});
export type RunParams = z.output<typeof RunParamsSchema>;

/** A run's parameters as its answers carry them: every one set. (A response schema has no transforms to encode.) */
const RunParamsAnswerSchema = z.object({
  maxIterations,
  scoreThreshold: scoreThreshold.describe(DESCRIBED.scoreThreshold),
  targetStrong: targetStrong.describe(DESCRIBED.targetStrong),
  scoreLimit: scoreLimit.describe(DESCRIBED.scoreLimit),
  budget: z.object({ maxTokens, maxCostUsd }),
});

export const CreateRunBodySchema = RunParamsSchema.extend({
  // Null is left out (see optional): { "role": {...}, "roleId": null } names one role.
  role: optional(RoleInputSchema).describe('The role, given inline (it is stored).'),
  roleId: optional(z.uuid()).describe('A stored role.'),
})
  .strict()
  .refine((b) => (b.role === undefined) !== (b.roleId === undefined), {
    message: 'give exactly one of "role" and "roleId"',
    path: ['role'],
  })
  .describe('The role, inline ("role") or stored ("roleId"): exactly one of them; run parameters left out (or null) take their defaults.');

export const CreateRunForRoleBodySchema = RunParamsSchema.strict();

export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': text(1, 200).optional().describe('Makes a retried POST with the same body return the first run (not counted against the run-start rate limit once that run exists).'),
});

const subscoreShape = Object.fromEntries(
  Object.entries(SUBSCORE_BOUNDS).map(([name, max]) => [name, z.number().int().min(0).max(max)]),
) as { [K in keyof typeof SUBSCORE_BOUNDS]: z.ZodNumber };

export const ShortlistEntrySchema = z
  .object({
    rank: z.number().int().min(1),
    candidateId: z.uuid(),
    externalId: z.string().nullable(),
    name: z.string().nullable(),
    totalScore: z.number().int().min(0).max(100),
    subscores: z.object(subscoreShape),
    rationale: z.string().nullable(),
    evidence: z.array(
      z.object({ subscore: z.enum(Object.keys(SUBSCORE_BOUNDS) as [keyof typeof SUBSCORE_BOUNDS]), quote: z.string(), verified: z.boolean() }),
    ),
    iteration: z.number().int(),
  })
  .meta({ id: 'ShortlistEntry' });
export type ShortlistEntry = z.infer<typeof ShortlistEntrySchema>;

export const UsageSchema = z.object({
  llmCalls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
});

export const ProgressSchema = z.object({
  iteration: z.number().int(),
  maxIterations: z.number().int(),
  candidatesSeen: z.number().int(),
  candidatesScored: z.number().int(),
  strongCandidates: z.number().int(),
});
export type Progress = z.infer<typeof ProgressSchema>;

export const StopSchema = z.object({
  reason: z.enum(STOP_REASONS),
  iteration: z.number().int(),
  reasoning: z.string(),
});
export type Stop = z.infer<typeof StopSchema>;

export const RunSchema = z
  .object({
    id: z.uuid(),
    roleId: z.uuid(),
    status: z.enum(RUN_STATUSES),
    engine: z.enum(ENGINES),
    params: RunParamsAnswerSchema,
    createdAt: Timestamp,
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
    progress: ProgressSchema,
    stop: StopSchema.nullable(),
    usage: UsageSchema,
    shortlist: z.array(ShortlistEntrySchema),
    error: z.object({ title: z.string(), detail: z.string() }).nullable(),
  })
  .meta({ id: 'MatchingRun' });
export type Run = z.infer<typeof RunSchema>;

export const RunSummarySchema = RunSchema.omit({ shortlist: true }).meta({ id: 'MatchingRunSummary' });

// Query schemas are strict (see PageQuerySchema): ?stauts=failed must not answer every run.
export const ListRunsQuerySchema = z
  .object({
    limit: queryInteger(1, 100).default(20),
    cursor: z.string().max(200).optional(),
    status: z.enum(RUN_STATUSES).optional(),
  })
  .strict();

/** run_events.seq is an integer column: a larger `after` or cursor is no seq of ours, and PostgreSQL would refuse it. */
export const MAX_EVENT_SEQ = 2_147_483_647;

export const EventsQuerySchema = z.object({
  after: queryInteger(0, MAX_EVENT_SEQ).default(0).describe('Return events with seq greater than this.'),
  // The contract's default for every list (API.md, Conventions).
  limit: queryInteger(1, 100).default(20),
  cursor: z.string().max(200).optional().describe('The nextCursor of the previous page (same as after=<last seq>).'),
}).strict();

export const EventSchema = z
  .object({ seq: z.number().int(), at: Timestamp, type: z.string(), data: z.record(z.string(), z.unknown()) })
  .meta({ id: 'RunEvent' });

export const TraceSchema = z
  .object({
    runId: z.uuid(),
    // A row's place in the trail (its cursor), not a resource's id: ids are UUIDs (API.md), and the events call theirs seq.
    items: z.array(z.object({ seq: z.number().int(), at: Timestamp, kind: z.string(), candidateId: z.uuid().nullable(), data: z.unknown() })),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'RunTrace' });

// An instant, not a date: "to=2024-01-31" could mean the start or the end of that day, so the answer says what to send.
const instant = () => z.iso.datetime({ offset: true, error: 'must be an ISO-8601 date and time with a time zone, such as 2024-01-01T00:00:00Z' });

export const UsageQuerySchema = z.object({
  from: instant().optional().describe('Inclusive start (ISO-8601); default: 30 days ago.'),
  to: instant().optional().describe('Exclusive end (ISO-8601); default: now.'),
  groupBy: z.enum(['day', 'agent', 'model']).default('day'),
}).strict();

const usageFigures = {
  llmCalls: z.number().int(),
  estimatedCalls: z
    .number()
    .int()
    .describe('of llmCalls, attempts whose tokens and cost are our estimate: answers without usage, and requests sent but never answered (timeouts, aborts), charged their estimated prompt'),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  costUsd: z.number(),
};
export const UsageReportSchema = z
  .object({
    items: z.array(z.object({ key: z.string(), ...usageFigures })),
    total: z.object(usageFigures),
  })
  .meta({ id: 'UsageReport' });
