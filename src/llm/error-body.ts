// Error answers in the shapes OpenAI-compatible servers send them, rewritten to OpenAI's, so the SDK keeps their words.
import { safeJsonParse } from './safe-json.js';

/**
 * The openai SDK reads an error answer's words from `{"error": {"message": ...}}` only. Other shapes lose them: the
 * error says "400 status code (no body)" although the server said what was wrong. Shapes seen in the wild:
 *   - vLLM before 0.10: `{"object": "error", "message": "...", "type": "BadRequestError", "code": 400}`;
 *   - FastAPI's own answers (a route vLLM does not serve, a body it cannot validate): `{"detail": "Not Found"}`, or a
 *     list of validation issues;
 *   - `{"error": "..."}`: Ollama's native API and other servers.
 * Each becomes `{"error": {"message", "type", "code", "param"}}`; any other body, and every success, passes as is.
 */
export function openAiErrorBody(text: string): string | null {
  const parsed = safeJsonParse(text, { forbiddenKeys: 'strip' });
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return null;
  const body = parsed.value as Record<string, unknown>;
  const wrap = (message: string, rest: Record<string, unknown> = {}) =>
    JSON.stringify({ error: { message, type: typeof rest.type === 'string' ? rest.type : null, code: rest.code ?? null, param: rest.param ?? null } });
  if (typeof body.error === 'string') return wrap(body.error);
  if (body.error !== undefined && body.error !== null) return null;
  if (typeof body.message === 'string') return wrap(body.message, body);
  if (body.detail !== undefined) return wrap(typeof body.detail === 'string' ? body.detail : (JSON.stringify(body.detail) ?? ''));
  return null;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch whose error answers (status 400 and up) carry their words in OpenAI's shape; see openAiErrorBody. */
export function withOpenAiErrorBodies(fetch: Fetch): Fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.status < 400) return res;
    // Our fetch has read the body whole already (under its size cap): reading it again costs a copy, on errors only.
    const text = await res.text();
    const rewritten = openAiErrorBody(text);
    const headers = new Headers(res.headers);
    if (rewritten !== null) {
      headers.set('content-type', 'application/json');
      headers.delete('content-length');
    }
    return new Response(rewritten ?? text, { status: res.status, statusText: res.statusText, headers });
  };
}
