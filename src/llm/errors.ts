// Named errors of the model layer: each carries a stable code and the HTTP status the error handler maps it to.
import type { z } from 'zod';
import { logSafeText } from '../text/log-safe-text.js';
import type { FailureKind } from './retry.js';

/** What a failure means to an API client; the single error handler maps these to problem+json. */
export abstract class LlmError extends Error {
  abstract readonly code: string;
  abstract readonly httpStatus: number;
}

/**
 * Candidates a request would carry were erased while it waited for its slot (or between its attempts): it is not sent.
 * An erased candidate's text must not reach a model after its erasure has been answered; the caller drops them, as a
 * step drops candidates erased before it read their texts.
 */
export class CandidatesErasedError extends Error {
  override name = 'CandidatesErasedError';

  constructor(readonly candidateIds: readonly string[]) {
    super(`${candidateIds.length} candidate(s) erased before the request was sent`);
  }
}

/**
 * The provider failed (or never answered) after our retries; `status` is the provider's HTTP status, if any. The
 * provider's words (the openai client puts the error body in its message, and a body may echo the request) are kept
 * scrubbed, with quoted values and what they echo of `sent` (the request's text) cut, and clipped: this message reaches
 * logs and the run's owner, and `reason` (those words alone) stands for the cause's message in a log line.
 */
export class ModelCallError extends LlmError {
  readonly code = 'model_call_failed';
  readonly httpStatus = 502;
  readonly agent: string;
  readonly model: string;
  readonly status: number | null;
  readonly retryable: boolean;
  readonly attempts: number;
  readonly reason: string;
  /** What kind of failure ended the call (src/llm/retry.ts): a run handed back after a rate limit waits it out. */
  readonly kind: FailureKind;
  /** The pause the provider asked for with its last refusal, if it asked. */
  readonly retryAfterMs: number | null;

  /**
   * `hint` is ours, not the provider's: what an operator can check, appended after the provider's words. `sent`: the
   * request's text, whose echo in the provider's words is cut (src/text/without-echo.ts).
   */
  constructor(args: {
    agent: string;
    model: string;
    status: number | null;
    retryable: boolean;
    attempts: number;
    cause: unknown;
    hint?: string;
    sent?: string;
    kind?: FailureKind;
    retryAfterMs?: number | null;
  }) {
    const reason = logSafeText(args.cause instanceof Error ? args.cause.message : String(args.cause), 300, args.sent);
    const hint = args.hint ? `; ${args.hint}` : '';
    super(`model call failed for agent ${args.agent} (model ${args.model}, status ${args.status ?? 'none'}, ${args.attempts} attempt(s)): ${reason}${hint}`, { cause: args.cause });
    this.name = 'ModelCallError';
    this.agent = args.agent;
    this.model = args.model;
    this.status = args.status;
    this.retryable = args.retryable;
    this.attempts = args.attempts;
    this.reason = reason;
    this.kind = args.kind ?? 'other';
    this.retryAfterMs = args.retryAfterMs ?? null;
  }
}

// How servers say a request is longer than the model's window: OpenAI (context_length_exceeded), vLLM ("maximum
// context length"), llama.cpp ("exceeds the available context size"), Ollama, Anthropic-style proxies ("prompt is too long").
const CONTEXT_OVERFLOW = /context[_ ]length|maximum context|context (?:size|window)|max_model_len|too many tokens|prompt is too long/i;

/** The server refused a request as longer than its model's context window (a 400, 413 or 422 saying so). */
export function isContextOverflow(err: unknown): err is ModelCallError {
  return err instanceof ModelCallError && (err.status === 400 || err.status === 413 || err.status === 422) && CONTEXT_OVERFLOW.test(err.reason);
}

/** The model never produced a valid structured answer within the re-ask bound. No value is invented. */
export class StructuredOutputError extends LlmError {
  readonly code = 'structured_output_invalid';
  readonly httpStatus = 502;
  readonly agent: string;
  readonly model: string;
  /** The last raw answer (content, or the refusal text), kept for the audit trail. */
  readonly raw: string | null;
  readonly issues: string[];
  readonly attempts: number;

  constructor(args: { agent: string; model: string; raw: string | null; issues: string[]; attempts: number }) {
    super(`agent ${args.agent} (model ${args.model}) gave no valid answer in ${args.attempts} attempt(s): ${args.issues.slice(0, 5).join('; ')}`);
    this.name = 'StructuredOutputError';
    this.agent = args.agent;
    this.model = args.model;
    this.raw = args.raw;
    this.issues = args.issues;
    this.attempts = args.attempts;
  }
}

export const BUDGET_LIMITS = ['tokens', 'cost', 'calls', 'deadline'] as const;
export type BudgetLimit = (typeof BUDGET_LIMITS)[number];

/** A call was refused before it was sent because its worst case does not fit in what is left. */
export class BudgetExceededError extends LlmError {
  readonly code = 'budget_exceeded';
  // 402: the request is well formed but the run has no allowance left to pay for more model work.
  readonly httpStatus = 402;
  readonly limit: BudgetLimit;
  readonly requested: number;
  readonly remaining: number;

  constructor(limit: BudgetLimit, requested: number, remaining: number) {
    super(`budget exceeded (${limit}): needs ${requested}, ${remaining} left`);
    this.name = 'BudgetExceededError';
    this.limit = limit;
    this.requested = requested;
    this.remaining = remaining;
  }
}

export const TOOL_LOOP_LIMITS = ['iterations', 'tokens'] as const;
export type ToolLoopLimit = (typeof TOOL_LOOP_LIMITS)[number];

/** The multi-turn tool loop hit its iteration or cumulative token cap. */
export class ToolLoopError extends LlmError {
  readonly code = 'tool_loop_limit';
  readonly httpStatus = 502;
  readonly agent: string;
  readonly limit: ToolLoopLimit;
  readonly cap: number;
  readonly used: number;

  constructor(args: { agent: string; limit: ToolLoopLimit; cap: number; used: number }) {
    super(`agent ${args.agent} tool loop stopped: ${args.limit} cap ${args.cap} reached (used ${args.used})`);
    this.name = 'ToolLoopError';
    this.agent = args.agent;
    this.limit = args.limit;
    this.cap = args.cap;
    this.used = args.used;
  }
}

/** Waiting (or calling) any longer would pass the deadline, so we stopped instead. */
export class DeadlineExceededError extends LlmError {
  readonly code = 'deadline_exceeded';
  readonly httpStatus = 504;
  readonly deadline: number;

  constructor(deadline: number, detail: string, cause?: unknown) {
    super(`deadline ${new Date(deadline).toISOString()} would be exceeded: ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'DeadlineExceededError';
    this.deadline = deadline;
  }
}

/** An agent is configured with a model the pinned registry does not know (or of the wrong kind). Boot fails on it. */
export class UnknownModelError extends LlmError {
  readonly code = 'unknown_model';
  readonly httpStatus = 500;
  readonly problems: Array<{ agent: string; model: string }>;

  constructor(problems: Array<{ agent: string; model: string; reason: string }>, known: string[]) {
    const lines = problems.map((p) => `agent "${p.agent}" uses ${p.reason} model "${p.model}"`);
    super(`${lines.join('; ')}; pinned models: ${known.join(', ')} (see config/models.json)`);
    this.name = 'UnknownModelError';
    this.problems = problems.map(({ agent, model }) => ({ agent, model }));
  }
}

/** Turns zod issues into short sentences a model (or a log reader) can act on. */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const at = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return `missing required key "${at}"`;
    if (issue.code === 'unrecognized_keys') return `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')} at ${at}`;
    if (issue.code === 'invalid_value') return `"${at}" must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    return `"${at}": ${issue.message}`;
  });
}

/**
 * What the operator can check after the server refused a request (ModelCallError's hint): no connection is the
 * server's address or the server down; a 401 or 403 is the key; a 404 is the wrong base URL or a model the server
 * does not serve; a 400 or 422 names what this request needed from the server.
 */
export function failureHint(
  status: number | null,
  body: { model: string; tools?: unknown[]; response_format?: { type?: string } },
  words = '',
  kind?: string,
): string | undefined {
  if (kind === 'connection') return 'check that the server LLM_BASE_URL names is up and reachable from this host';
  if (status === 401 || status === 403) return 'check LLM_API_KEY: the server refused it';
  if (status === 404) return `check that LLM_BASE_URL is the server's OpenAI-compatible root (it ends in /v1) and that the server serves model ${body.model}`;
  if (status !== 400 && status !== 422 && status !== 413) return undefined;
  if (CONTEXT_OVERFLOW.test(words)) {
    return `the request is longer than the server's context window for model ${body.model}: its contextWindow in the model registry (MODEL_REGISTRY_PATH) must not exceed the server's (vLLM's max_model_len, Ollama's num_ctx)`;
  }
  if (status === 413) return undefined;
  const needs = [
    ...(body.response_format?.type === 'json_schema' ? ['a json_schema response_format'] : []),
    ...(body.tools && body.tools.length > 0 ? ['tools (function calling)'] : []),
  ];
  if (needs.length === 0) return undefined;
  return `the request used ${needs.join(' and ')}, which the server must support for model ${body.model} (docs/operations.md, Local model servers)`;
}
