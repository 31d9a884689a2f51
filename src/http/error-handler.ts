// The single place where errors become RFC 9457 problem documents; 5xx details are logged, never returned.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { sqlState } from '../db/database.js';
import { AppError, DatabaseFaultError, type FieldError } from '../errors.js';
import { LlmError } from '../llm/errors.js';
import { PROBLEM_CONTENT_TYPE, problem } from './problem.js';

// Fastify's own client errors, by code, with the status and words a person can act on.
const FASTIFY_CLIENT_ERRORS: Record<string, { status: number; code: string; title: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type', title: 'Unsupported media type' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'payload_too_large', title: 'Payload too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'bad_request', title: 'Bad request' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'malformed_json', title: 'Malformed JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'bad_request', title: 'Bad request' },
  FST_ERR_CTP_EMPTY_TYPE: { status: 415, code: 'unsupported_media_type', title: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_TYPE: { status: 415, code: 'unsupported_media_type', title: 'Unsupported media type' },
};

// Text PostgreSQL refuses to store (NUL bytes, bad encodings) is the client's fault, not ours.
const CLIENT_SQLSTATES: Record<string, string> = {
  '22021': 'The request contains a byte sequence that is not valid text.',
  '22P05': 'The request contains characters that cannot be stored (such as NUL).',
  '22P02': 'The request contains a value of the wrong form.',
  '22003': 'A number in the request is out of range.',
  '54000': 'A value in the request is too large.',
  '22007': 'A date or time in the request is not valid.',
  '22008': 'A date or time in the request is out of range.',
  '22009': 'A time zone offset in the request is out of range.',
};

/** A problem type and title for a 4xx status: "range_not_satisfiable", "Range not satisfiable". */
function clientErrorNames(status: number): [string, string] {
  const words = (STATUS_CODES[status] ?? 'Bad request').toLowerCase();
  return [words.replace(/[^a-z]+/g, '_'), words.charAt(0).toUpperCase() + words.slice(1)];
}

// An array of 20,000 bad items must not become a 20,000-entry answer: the first ones are enough to act on.
const MAX_FIELD_ERRORS = 50;

/** What a client can do about a 413: the route's limit in bytes, and for candidates, smaller batches. */
function tooLarge(request: FastifyRequest): string {
  const limit = request.routeOptions.bodyLimit;
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / (1024 * 1024))} MiB` : `${limit} bytes`;
  // 500 resumes of 100,000 characters fit as plain ASCII; accented or escaped text takes more bytes per character.
  const hint = request.routeOptions.url === '/v1/candidates' ? ' Send the candidates in smaller batches.' : '';
  return `The request body is larger than this route accepts (${size} of JSON).${hint}`;
}

/** What a client can do about a 415: send the body as JSON, labelled so; and what this request sent instead. */
function notJson(request: FastifyRequest): string {
  const given = request.headers['content-type'];
  const sent = given ? `was ${JSON.stringify(given.slice(0, 100))}` : 'had none';
  return `The body must be JSON, sent with Content-Type: application/json (this request's ${sent}).`;
}

export function sendProblem(reply: FastifyReply, status: number, code: string, title: string, detail: string, errors?: FieldError[]) {
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(problem(status, code, title, detail, errors));
}

/**
 * A model layer error (the embedding endpoint failing during an upsert) answers the outcome it names: its code and
 * status (502 model_call_failed, 504 deadline_exceeded, ...), not a bare 500. The provider's words are logged only.
 */
function sendModelProblem(request: FastifyRequest, reply: FastifyReply, err: LlmError) {
  const title = err.code.charAt(0).toUpperCase() + err.code.slice(1).replace(/_/g, ' ');
  if (err.httpStatus < 500) return sendProblem(reply, err.httpStatus, err.code, title, err.message);
  request.log.error({ err }, 'model call failed');
  return sendProblem(reply, err.httpStatus, err.code, title, 'The model endpoint this request needs gave no usable answer after retries, so the request was not carried out; retry later.');
}

/**
 * The router's own refusals, before any route or hook runs (fastify's `frameworkErrors`): without this they are
 * fastify's plain JSON, and an over-long id a 414. Every path parameter of this service is an `id` (a UUID of 36
 * characters), so one over the router's 100 is refused exactly as a shorter malformed id is.
 */
export function sendFrameworkProblem(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  switch (err.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendProblem(reply, 400, 'validation_failed', 'Invalid request', 'The request does not match the schema; see errors.', [
        { path: 'params.id', message: 'must be a UUID' },
      ]);
    case 'FST_ERR_BAD_URL':
      return sendProblem(reply, 400, 'bad_request', 'Bad request', 'The path is not valid percent-encoded UTF-8.');
    default:
      request.log.error({ err }, 'unhandled error');
      return sendProblem(reply, 500, 'internal', 'Internal server error', 'Something went wrong on our side; it has been logged.');
  }
}

/**
 * A query parameter given more than once (`?limit=5&limit=10`) reaches its schema as an array, and zod's words for
 * that ("expected number, received NaN") do not say what to change: this does.
 */
function repeatedParameter(request: FastifyRequest, context: string | undefined, path: string): string | undefined {
  if (context !== 'querystring') return undefined;
  const name = path.slice('querystring.'.length);
  const value = (request.query as Record<string, unknown> | null | undefined)?.[name];
  return Array.isArray(value) ? `is given ${value.length} times; give it once` : undefined;
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof AppError) {
      // The driver's words (they can quote SQL or data) are logged; the answer names the fault only.
      if (err instanceof DatabaseFaultError) request.log.error({ err: err.cause, fault: err.fault }, 'database fault');
      if (err.headers) reply.headers(err.headers);
      return sendProblem(reply, err.status, err.code, err.title, err.message, err.errors);
    }
    if (err instanceof LlmError) return sendModelProblem(request, reply, err);
    if (hasZodFastifySchemaValidationErrors(err)) {
      const errors = err.validation.flatMap((v) => {
        const path = [err.validationContext, ...String(v.instancePath).split('/').filter(Boolean)].join('.');
        // One entry per unknown field, with its own path: "body.orgId is not a known field" is what a client can fix.
        const unknownKeys = v.keyword === 'unrecognized_keys' ? (v.params as { keys?: unknown }).keys : undefined;
        if (Array.isArray(unknownKeys) && unknownKeys.length > 0) {
          return unknownKeys.map((key) => ({ path: `${path}.${String(key)}`, message: 'is not a known field' }));
        }
        return [{ path, message: repeatedParameter(request, err.validationContext, path) ?? v.message ?? 'is invalid' }];
      }).slice(0, MAX_FIELD_ERRORS);
      return sendProblem(reply, 400, 'validation_failed', 'Invalid request', 'The request does not match the schema; see errors.', errors);
    }
    const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
    if (known) {
      // Fastify's own words for these ("Unsupported Media Type") repeat the title and do not say what to send.
      const detail = known.status === 413 ? tooLarge(request) : known.status === 415 ? notJson(request) : err.message;
      return sendProblem(reply, known.status, known.code, known.title, detail);
    }
    const state = sqlState(err);
    if (state && CLIENT_SQLSTATES[state]) {
      return sendProblem(reply, 400, 'bad_request', 'Bad request', CLIENT_SQLSTATES[state]);
    }
    if (err.statusCode === 429) {
      return sendProblem(reply, 429, 'too_many_requests', 'Too many requests', err.message);
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // Another client error (a static file's 403 or 416): its own type and title, not a 400's.
      const [type, title] = clientErrorNames(err.statusCode);
      return sendProblem(reply, err.statusCode, type, title, err.message);
    }
    request.log.error({ err }, 'unhandled error');
    return sendProblem(reply, 500, 'internal', 'Internal server error', 'Something went wrong on our side; it has been logged.');
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, 404, 'not_found', 'Not found', `No route ${request.method} ${request.url.split('?')[0]}.`),
  );
}
