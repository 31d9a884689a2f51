// What the route schemas cannot say about the contract, added to the generated OpenAPI document: the problem media
// type of errors, response headers (ETag, Retry-After, Location, the rate limits'), If-None-Match, the routes that need
// no key, the Prometheus text of /metrics, the optional body of a stored role's run, the 413/415 of every POST and DELETE, and
// the 503 of a service shutting down or of a database fault; and without the schemas no path uses.
import { PROBLEM_CONTENT_TYPE } from './problem.js';

interface Operation {
  security?: unknown[];
  parameters?: Array<Record<string, unknown>>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Record<string, unknown> & { anyOf?: Array<Record<string, unknown>> } }> };
  responses?: Record<string, Response>;
}
interface Response {
  description?: string;
  content?: Record<string, unknown>;
  headers?: Record<string, Header>;
}
interface Header {
  description: string;
  schema: { type: 'string' | 'integer' };
}
type Document = { paths?: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, unknown> } };

const header = (description: string, type: Header['schema']['type'] = 'string'): Header => ({ description, schema: { type } });
const ETAG = header('The run\'s version; send it back as If-None-Match to be answered 304 while nothing changed.');
const RETRY_AFTER_RUN = header('Seconds to wait before polling again; only while the run is unfinished.', 'integer');
const LOCATION_RUN = header('The run: /v1/matching-runs/{id}.');
const RUN_STARTED = { Location: LOCATION_RUN, ETag: ETAG, 'Retry-After': RETRY_AFTER_RUN };

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header("Requests of this kind the API key may make per minute (RATE_LIMIT_WRITES_PER_MINUTE or RATE_LIMIT_RUNS_PER_MINUTE); absent from a run start answered for its Idempotency-Key, which is not counted.", 'integer'),
  'X-RateLimit-Remaining': header('Requests of this kind left in the current minute.', 'integer'),
  'X-RateLimit-Reset': header('Seconds until the allowance is renewed.', 'integer'),
};
/** Operations limited per API key: every answer after authentication says where the key stands. */
const RATE_LIMITED = new Set(['post /v1/candidates', 'delete /v1/candidates/{id}', 'post /v1/roles', 'post /v1/matching-runs', 'post /v1/roles/{id}/matching-runs']);

/** Response headers by operation ("method path") and status. */
const RESPONSE_HEADERS: Record<string, Record<string, Record<string, Header>>> = {
  'post /v1/matching-runs': { 202: RUN_STARTED },
  'post /v1/roles/{id}/matching-runs': { 202: RUN_STARTED },
  'get /v1/matching-runs/{id}': { 200: { ETag: ETAG, 'Retry-After': RETRY_AFTER_RUN }, 304: { ETag: ETAG, 'Retry-After': RETRY_AFTER_RUN } },
  'post /v1/matching-runs/{id}/cancel': { 202: { ETag: ETAG, 'Retry-After': RETRY_AFTER_RUN } },
  'post /v1/roles': { 201: { Location: header('The role: /v1/roles/{id}.') } },
};

const UNAVAILABLE =
  'The service is shutting down (`unavailable`), or the database failed under the request: unreachable or its connection lost ' +
  '(`database_unavailable`), a statement cancelled by its timeout (`database_timeout`), no pooled connection free in time ' +
  '(`database_busy`), the work rolled back on every attempt for a conflict with concurrent work (`database_conflict`), ' +
  'or the database out of disk space or memory (`database_out_of_resources`). ' +
  'Retry after Retry-After.';
const SHUTTING_DOWN = 'The service is shutting down (`unavailable`): retry after Retry-After, on another process if there is one.';
const NO_KEY = new Set(['/healthz', '/readyz', '/metrics']);
const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };

export function completeDocument<T>(generated: T): T {
  const doc = generated as Document;
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      const responses = (op.responses ??= {});
      // Every body passes fastify's limit and content-type check before its schema (1 MiB; the upsert sets 64 MiB): also
      // the body a POST or DELETE that takes none is sent anyway.
      if (op.requestBody || method === 'post' || method === 'delete') {
        responses['413'] ??= { description: 'The body is larger than this route accepts; the detail names the limit.', content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } } };
        responses['415'] ??= { description: 'The body is not JSON.', content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } } };
      }
      // Every route answers a shutting-down process's 503: an operations route that declares no 503 of its own, that one.
      if (NO_KEY.has(path)) op.security = [];
      responses['503'] ??= { description: NO_KEY.has(path) ? SHUTTING_DOWN : UNAVAILABLE, content: { [PROBLEM_CONTENT_TYPE]: { schema: PROBLEM_REF } } };
      for (const [status, response] of Object.entries(responses)) {
        // Errors are problem documents (RFC 9457), with their own media type.
        if (Number(status) >= 400 && response.content?.['application/json']) {
          response.content = { [PROBLEM_CONTENT_TYPE]: response.content['application/json'] };
        }
        if (status === '401') response.headers = { ...response.headers, 'WWW-Authenticate': header('Bearer') };
        if (status === '503' && (!NO_KEY.has(path) || response.description === SHUTTING_DOWN)) response.headers = { ...response.headers, 'Retry-After': header('Seconds to wait before retrying.', 'integer') };
        if (status === '429') response.headers = { ...response.headers, 'Retry-After': header('Seconds until the allowance is renewed.', 'integer') };
        const extra = RESPONSE_HEADERS[`${method} ${path}`]?.[status];
        if (extra) response.headers = { ...response.headers, ...extra };
        // Not on a run start answered for its Idempotency-Key (the first run again, or 422 for another body): such a
        // start is not counted, and the limiter does not see it.
        const replayOnly = status === '422' && path.endsWith('matching-runs');
        if (RATE_LIMITED.has(`${method} ${path}`) && status !== '401' && status !== '503' && !replayOnly) response.headers = { ...response.headers, ...RATE_LIMIT_HEADERS };
      }
      if (method === 'get' && path === '/v1/matching-runs/{id}') {
        responses['304'] = { ...responses['304'], description: 'Not modified: the run is as the ETag in If-None-Match names it.' };
        const parameters = (op.parameters ??= []);
        if (!parameters.some((p) => p.name === 'if-none-match')) parameters.push({
          in: 'header',
          name: 'if-none-match',
          required: false,
          description: 'The ETag of the run as last seen.',
          schema: { type: 'string' },
        });
      }
      // Every parameter of a run has a default: no body is needed. The route's schema takes a missing body as null
      // (fastify's), but a body that is there must be an object (a JSON null is a 400): the document lists the object.
      if (method === 'post' && path === '/v1/roles/{id}/matching-runs' && op.requestBody) {
        op.requestBody.required = false;
        const json = op.requestBody.content?.['application/json'];
        const object = json?.schema?.anyOf?.find((s) => s.type !== 'null');
        if (json && object) json.schema = object;
      }
    }
  }
  const metrics = doc.paths?.['/metrics']?.get?.responses?.['200'];
  if (metrics) metrics.content = { 'text/plain; version=0.0.4': { schema: { type: 'string' } } };
  dropUnusedSchemas(doc);
  return generated;
}

const SCHEMA_REF = '#/components/schemas/';

/**
 * Removes the component schemas no path refers to, directly or through another schema. The zod provider adds an input
 * copy of every named schema ("RoleInput": the role as answered, id and createdAt required), and no request uses one:
 * listed, they read as the request bodies they are not, and code generators make a model of each.
 */
function dropUnusedSchemas(doc: Document): void {
  const schemas = doc.components?.schemas;
  if (!schemas) return;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const name = key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF) ? value.slice(SCHEMA_REF.length) : null;
        if (name === null) visit(value);
        else if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      }
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
