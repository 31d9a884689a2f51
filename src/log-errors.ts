// What of an error may reach a log line: pino's `err` serializer and the text the CLI and a failed boot print.
// pino's default serializer logs every enumerable property of an error, and a PostgreSQL error carries the failing
// row (`detail`: "Key (email)=(jane@x.com) already exists", "Failing row contains (..., Jane Doe, ...)"), `where`,
// `internalQuery` and `hint`; its message can quote a value ('invalid input syntax for type uuid: "jane@x.com"').
// The openai client's APIError carries the model server's parsed error body and headers, and the body may echo the
// request. So errors are logged from an allow-list of diagnostic fields, with their words scrubbed and quoted values cut.
import { APIError } from 'openai';
import pg from 'pg';
import { LlmError, ModelCallError } from './llm/errors.js';
import { clip, logSafeText, MAX_MESSAGE_CHARS, redactSecrets } from './text/log-safe-text.js';
import { scrub } from './text/scrubber.js';

/** Causes and aggregated errors followed, at most. */
const MAX_DEPTH = 3;

/** Errors whose messages are ours and whose untrusted parts were made log-safe when they were built (llm/errors.ts). */
function ownMessage(err: Error): boolean {
  return err instanceof LlmError;
}

// Fields an operator diagnoses by, all short codes or numbers: a PostgreSQL error's (no detail, where, hint,
// internalQuery, nor the statement's parameters), a socket's, fastify's, the openai client's (no body, no headers)
// and our own errors'.
const KEPT_FIELDS = [
  'code', 'severity', 'constraint', 'table', 'column', 'schema', 'dataType', 'routine', 'file', 'line', 'position',
  'errno', 'syscall', 'address', 'port', 'statusCode', 'status', 'httpStatus', 'requestID', 'requestId', 'param',
  'agent', 'model', 'retryable', 'attempts', 'limit', 'requested', 'remaining', 'cap', 'used', 'deadline',
] as const;
const MAX_FIELD_CHARS = 120;

function keptField(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  // A short code may still be somebody's words (an openai `param` the server filled in): scrubbed and cut like a message.
  if (typeof value === 'string') return logSafeText(value, MAX_FIELD_CHARS);
  return undefined;
}

/** The words of an error as a log line may carry them. */
export function errorMessage(err: Error): string {
  const message = String(err.message ?? '');
  return ownMessage(err) ? clip(scrub(redactSecrets(message), { detectNames: false }), MAX_MESSAGE_CHARS * 2) : logSafeText(message);
}

/** The stack with its first lines (the name and message) written again from the safe message; the frames are code. */
function safeStack(err: Error, name: string, message: string): string | undefined {
  if (typeof err.stack !== 'string') return undefined;
  const firstFrame = err.stack.search(/\n\s+at /);
  return `${name}: ${message}${firstFrame >= 0 ? err.stack.slice(firstFrame) : ''}`;
}

function errorName(err: Error): string {
  // pg names every server error "error": the class says more.
  if (err instanceof pg.DatabaseError) return 'DatabaseError';
  return typeof err.name === 'string' && err.name ? err.name : err.constructor?.name || 'Error';
}

/**
 * A model server's answer as an error (the openai client's APIError with the answer's status): its message is the
 * server's error body, which may echo the request, and only the caller knows what was sent. A ModelCallError around it
 * carries the words with the echo cut (`reason`), which stand for it; met alone, its words are left out.
 */
function isServerAnswer(err: Error): err is APIError {
  return err instanceof APIError && typeof err.status === 'number';
}
const SERVER_WORDS_LEFT_OUT = "(the model server's words are not logged here: they may echo the request)";

/** pino's `err` serializer: an allow-list of what an error may tell a log, with its cause and aggregated errors. */
export function serializeError(value: unknown, depth = 0, serverWords?: string): unknown {
  if (typeof value === 'string') return logSafeText(value);
  if (!(value instanceof Error)) {
    if (value === null || typeof value !== 'object') return value;
    return { type: 'NonError', message: logSafeText(safeJson(value)) };
  }
  const name = errorName(value);
  const message = isServerAnswer(value) ? (serverWords ?? `${value.status} ${SERVER_WORDS_LEFT_OUT}`) : errorMessage(value);
  const out: Record<string, unknown> = { type: value.constructor?.name || name, name, message };
  // The OpenAI error type ("invalid_request_error"), beside its code: `type` is the error's class here.
  if (isServerAnswer(value) && typeof value.type === 'string') out.errorType = logSafeText(value.type, MAX_FIELD_CHARS);
  const stack = safeStack(value, name, message);
  if (stack !== undefined) out.stack = stack;
  for (const field of KEPT_FIELDS) {
    if (!Object.prototype.hasOwnProperty.call(value, field) && !(field in value)) continue;
    const kept = keptField((value as unknown as Record<string, unknown>)[field]);
    if (kept !== undefined) out[field] = kept;
  }
  const issues = (value as { issues?: unknown }).issues;
  if (Array.isArray(issues) && issues.every((i) => typeof i === 'string')) out.issues = issues.slice(0, 5).map((i) => logSafeText(i, 200));
  if (depth < MAX_DEPTH) {
    if (value.cause !== undefined) out.cause = serializeError(value.cause, depth + 1, value instanceof ModelCallError ? value.reason : undefined);
    const errors = (value as { errors?: unknown }).errors;
    if (value instanceof AggregateError && Array.isArray(errors)) out.errors = errors.slice(0, 5).map((e) => serializeError(e, depth + 1));
  }
  return out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** An error as one line for a terminal (the CLI's failure, a failed boot): its safe name and message, or its safe stack. */
export function errorText(err: unknown, opts: { stack?: boolean } = {}): string {
  if (!(err instanceof Error)) return logSafeText(String(err));
  const name = errorName(err);
  const message = errorMessage(err);
  return (opts.stack ? safeStack(err, name, message) : undefined) ?? `${name}: ${message}`;
}
