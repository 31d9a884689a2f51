// The fetch the model client sends with: node:http(s) with keep-alive agents, answers read whole up to a size cap.
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * The default cap on one answer's body, counted after decompression. The largest answer we ask for is a batch of
 * 256 embeddings of text-embedding-3-large (3072 floats each) as JSON: ~10 MB compact, ~19 MB as OpenAI indents it,
 * ~25 MB when every float is written at full precision. Chat answers are bounded by max_tokens: well under 1 MB.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Chat answers get a cap of their own, the smaller of this and the configured one: a server that ignores max_tokens
 * (or a hostile one) sent 24 MB answers that were parsed, re-asked and stored whole in the run's trail, and a few of
 * them held the embedded database for minutes. A completion of the longest our agents ask for, reasoning included,
 * is a few hundred kilobytes.
 */
export const MAX_CHAT_RESPONSE_BYTES = 2 * 1024 * 1024;

/**
 * The model server's answer passed the body cap; the socket was destroyed and nothing of the body kept. The server
 * is untrusted: a hostile or broken one could otherwise send gigabytes (or a small gzip that inflates to them).
 */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  readonly code = 'ERR_RESPONSE_TOO_LARGE';

  constructor(
    readonly limitBytes: number,
    /** The status the answer came with: whether the provider bills it depends on it (retry.ts, mayBeBilled). */
    readonly status: number,
    /** The answer's x-request-id, if it sent one, to match the ledger row with the provider's logs. */
    readonly requestId: string | null,
  ) {
    // No text of the server's in the message: the SDK takes a fetch failure whose text says "timed out" for a timeout.
    super(`the model server's answer (HTTP ${status}) passed the ${limitBytes}-byte limit; the connection was closed`);
  }
}

/**
 * Why not the global fetch: measured on this service's requests (15 scorer prompts of ~11 KB sent at once),
 * undici's WHATWG fetch cost ~0.6 ms more CPU per request, and the first of the fifteen reached the server
 * 11 ms after they were issued instead of 6. With tens of runs sharing one event loop that is a share of every
 * model slot. The SDK supports a custom fetch; this one covers what the client sends: JSON bodies (strings or
 * bytes), non-streaming answers, abort signals (the SDK's timeouts abort them), gzip/deflate/brotli answers,
 * http and https. No redirects are followed and no proxy is used (the global fetch uses none either).
 */
export function createHttpFetch(opts: { maxSockets?: number; maxResponseBytes?: number; maxChatResponseBytes?: number } = {}) {
  const configured = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const chatCap = Math.min(configured, opts.maxChatResponseBytes ?? MAX_CHAT_RESPONSE_BYTES);
  const agentOptions = { keepAlive: true, maxSockets: opts.maxSockets ?? 256, scheduling: 'lifo' as const };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };

  async function httpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    if (input instanceof Request) throw new TypeError('httpFetch takes a URL and RequestInit, not a Request');
    const url = new URL(input);
    const secure = url.protocol === 'https:';
    const maxResponseBytes = url.pathname.endsWith('/chat/completions') ? chatCap : configured;
    if (!secure && url.protocol !== 'http:') throw new TypeError(`unsupported protocol ${url.protocol}`);
    const body = init.body;
    if (body != null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('httpFetch sends string or byte bodies only');
    }
    const headers: Record<string, string> = {};
    // The SDK hands over a Headers already: read as is, not copied into another one first.
    (init.headers instanceof Headers ? init.headers : new Headers(init.headers)).forEach((value, key) => (headers[key] = value));
    init.signal?.throwIfAborted();

    return new Promise<Response>((resolve, reject) => {
      const request = (secure ? https : http).request(
        url,
        { method: init.method ?? 'GET', headers, agent: secure ? agents.https : agents.http, signal: init.signal ?? undefined },
        (res) => {
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            if (value !== undefined) responseHeaders.set(key, Array.isArray(value) ? value.join(', ') : value);
          }
          const encoding = (res.headers['content-encoding'] ?? '').trim().toLowerCase();
          const decoder =
            encoding === 'gzip' || encoding === 'x-gzip' ? zlib.createGunzip()
            : encoding === 'deflate' ? zlib.createInflate()
            : encoding === 'br' ? zlib.createBrotliDecompress()
            : null;
          const stream: Readable = decoder ? res.pipe(decoder) : res;
          if (decoder) {
            res.on('error', (err) => decoder.destroy(err));
            responseHeaders.delete('content-encoding');
            responseHeaders.delete('content-length');
          }
          const status = res.statusCode ?? 500;
          const chunks: Buffer[] = [];
          let received = 0;
          let tooLarge = false;
          const refuse = () => {
            tooLarge = true;
            chunks.length = 0;
            const requestId = res.headers['x-request-id'];
            reject(new ResponseTooLargeError(maxResponseBytes, status, typeof requestId === 'string' ? requestId : null));
            // Destroying the request destroys its socket: the rest is never read, and a half-read socket never goes
            // back to the keep-alive pool.
            decoder?.destroy();
            request.destroy();
          };
          // Listened to before any refusal: the teardown can make the answer emit an error, and an unheard one would crash.
          stream.on('error', reject);
          // A declared length over the cap is refused before a byte of the body is read (compressed ones are counted).
          if (!decoder && Number(res.headers['content-length']) > maxResponseBytes) return refuse();
          stream.on('data', (chunk: Buffer) => {
            if (tooLarge) return;
            received += chunk.length;
            if (received > maxResponseBytes) return refuse();
            chunks.push(chunk);
          });
          stream.on('end', () => {
            if (tooLarge) return;
            // A Response cannot carry a body with these statuses.
            const empty = status === 204 || status === 205 || status === 304 || init.method === 'HEAD';
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: responseHeaders }));
          });
        },
      );
      request.on('error', reject);
      request.end(body ?? undefined);
    });
  }

  return httpFetch;
}
