// A scripted OpenAI-compatible server (chat completions, embeddings) on node:http for the real openai client in tests.
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadModelRegistry } from '../../src/llm/model-registry.js';

export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
}

export interface FakeToolCall {
  id?: string;
  name: string;
  /** The raw arguments string, exactly as a model would emit it (possibly invalid JSON). */
  arguments: string;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export type FakeReply = (
  | { type: 'chat'; content?: string | null; refusal?: string | null; toolCalls?: FakeToolCall[]; finishReason?: FinishReason; usage?: FakeUsage }
  | { type: 'error'; status: number; error?: { message?: string; type?: string; code?: string | null } }
  | { type: 'raw'; status: number; body: string }
  /** Never answers: the request stays open until the client aborts or the server closes. */
  | { type: 'hang' }
  /** Destroys the socket without an answer: the client sees a connection error. */
  | { type: 'drop' }
  /**
   * A chat completion whose content is padded to make the body `bytes` long (Infinity: it never ends), sent without a
   * content-length and as fast as the client reads it (backpressure): a broken or hostile server. Stops when the
   * client closes the socket.
   */
  | { type: 'large'; bytes: number; status?: number }
) & { headers?: Record<string, string>; delayMs?: number };

export interface FakeRequestBody {
  model?: string;
  messages?: Array<{ role: string; content?: unknown; tool_call_id?: string; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }>;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown>; strict?: boolean | null } };
  temperature?: number;
  max_tokens?: number;
  input?: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
  [key: string]: unknown;
}

export interface RecordedRequest {
  seq: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: FakeRequestBody;
  /** The x-talent-matcher-agent header our chat caller sends, if any. */
  agent: string | null;
  /** performance.now() when the body was read; compare two requests to measure waits. */
  receivedAt: number;
}

export type FakeHandler = (req: RecordedRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface StartOptions {
  /** Embedding dimension per model id; defaults to config/models.json. */
  dimensions?: Record<string, number>;
  latencyMs?: number;
  jitterMs?: number;
}

/** Reply builders for the faults and answers tests script. */
export const fakeReply = {
  text: (content: string, usage?: FakeUsage): FakeReply => ({ type: 'chat', content, usage }),
  json: (value: unknown, usage?: FakeUsage): FakeReply => ({ type: 'chat', content: JSON.stringify(value), usage }),
  toolCalls: (calls: Array<{ id?: string; name: string; args: unknown }>, usage?: FakeUsage): FakeReply => ({
    type: 'chat',
    content: null,
    finishReason: 'tool_calls',
    toolCalls: calls.map((c) => ({ id: c.id, name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) })),
    usage,
  }),
  toolCall: (name: string, args: unknown, id?: string, usage?: FakeUsage): FakeReply => fakeReply.toolCalls([{ id, name, args }], usage),
  unknownToolCall: (id?: string): FakeReply => fakeReply.toolCall('delete_all_candidates', { confirm: true }, id),
  invalidToolArgs: (name: string, id?: string): FakeReply => fakeReply.toolCall(name, '{"location": "Boston", ', id),
  truncated: (partial = '{"queries": ["senior rust eng', usage?: FakeUsage): FakeReply => ({ type: 'chat', content: partial, finishReason: 'length', usage }),
  invalidJson: (usage?: FakeUsage): FakeReply => ({ type: 'chat', content: 'Sure! Here is the JSON: {queries: [rust,}', usage }),
  refusal: (text = "I'm sorry, I can't help with that.", usage?: FakeUsage): FakeReply => ({ type: 'chat', content: null, refusal: text, usage }),
  serverError: (status = 500): FakeReply => ({ type: 'error', status, error: { message: 'The server had an error', type: 'server_error' } }),
  rateLimited: (opts: { retryAfterSeconds?: number; retryAfterMs?: number } = {}): FakeReply => ({
    type: 'error',
    status: 429,
    error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
    headers: {
      ...(opts.retryAfterSeconds !== undefined ? { 'retry-after': String(opts.retryAfterSeconds) } : {}),
      ...(opts.retryAfterMs !== undefined ? { 'retry-after-ms': String(opts.retryAfterMs) } : {}),
    },
  }),
  insufficientQuota: (): FakeReply => ({
    type: 'error',
    status: 429,
    error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' },
  }),
  error: (status: number, message = 'error', code: string | null = null): FakeReply => ({ type: 'error', status, error: { message, type: 'invalid_request_error', code } }),
  hang: (): FakeReply => ({ type: 'hang' }),
  drop: (): FakeReply => ({ type: 'drop' }),
  large: (bytes: number, status = 200): FakeReply => ({ type: 'large', bytes, status }),
  endless: (status = 200): FakeReply => ({ type: 'large', bytes: Infinity, status }),
  slow: (ms: number, reply: FakeReply): FakeReply => ({ ...reply, delayMs: (reply.delayMs ?? 0) + ms }),
};

const estimate = (text: string) => Math.ceil(text.length / 4);

/** Feature-hashed bag of words, unit length: deterministic, and texts sharing words have similar vectors. */
export function fakeEmbedding(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  const words = text.toLowerCase().split(/[^\p{L}\p{N}+#]+/u).filter(Boolean);
  for (const word of words) {
    const h = createHash('sha256').update(word).digest();
    v[h.readUInt32LE(0) % dimension]! += h[4]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

function chatCompletion(seq: number, body: FakeRequestBody, reply: Extract<FakeReply, { type: 'chat' }>) {
  const toolCalls = reply.toolCalls?.map((c, i) => ({ id: c.id ?? `call_${seq}_${i}`, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  const emitted = (reply.content ?? '') + (reply.refusal ?? '') + (reply.toolCalls?.map((c) => c.name + c.arguments).join('') ?? '');
  const usage = reply.usage ?? { promptTokens: estimate(JSON.stringify(body.messages ?? [])), completionTokens: estimate(emitted), cachedTokens: 0 };
  return {
    id: `chatcmpl-fake-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'unknown',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.content ?? null, refusal: reply.refusal ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: reply.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    },
  };
}

/** A body of `bytes` bytes (never ending for Infinity): head, padding in 64 KiB chunks, tail. */
function* padded(head: string, tail: string, bytes: number): Generator<Buffer> {
  yield Buffer.from(head);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  for (let left = bytes - head.length - tail.length; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  yield Buffer.from(tail);
}

export async function startFakeLlmServer(opts: StartOptions = {}) {
  const dimensions =
    opts.dimensions ??
    Object.fromEntries(loadModelRegistry().models.flatMap((m) => (m.kind === 'embedding' ? [[m.id, m.dimension] as const] : [])));
  const requests: RecordedRequest[] = [];
  const queue: FakeReply[] = [];
  const events = new EventEmitter();
  const timers = new Set<NodeJS.Timeout>();
  let handler: FakeHandler | null = null;
  let latency = { ms: opts.latencyMs ?? 0, jitter: opts.jitterMs ?? 0 };
  let inFlight = 0;
  let maxInFlight = 0;
  let seq = 0;

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    if (res.destroyed || res.writableEnded) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  function wait(ms: number, res: ServerResponse): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(!res.destroyed);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve(!res.destroyed);
      }, ms);
      timers.add(timer);
      res.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      });
    });
  }

  function embeddings(body: FakeRequestBody, res: ServerResponse, headers: Record<string, string>) {
    const model = body.model ?? '';
    const dimension = body.dimensions ?? dimensions[model];
    if (!dimension) return send(res, 404, { error: { message: `The model \`${model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' } }, headers);
    const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input ?? '')];
    const data = inputs.map((text, index) => {
      const vector = fakeEmbedding(text, dimension);
      const embedding = body.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
      return { object: 'embedding', index, embedding };
    });
    const tokens = inputs.reduce((sum, t) => sum + estimate(t), 0);
    send(res, 200, { object: 'list', model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } }, headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const n = ++seq;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    let body: FakeRequestBody = {};
    try {
      body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequestBody) : {};
    } catch {
      return send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
    }
    const agentHeader = req.headers['x-talent-matcher-agent'];
    const recorded: RecordedRequest = {
      seq: n,
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      agent: typeof agentHeader === 'string' ? agentHeader : null,
      receivedAt: performance.now(),
    };
    requests.push(recorded);
    events.emit('request', recorded);
    const baseHeaders = { 'x-request-id': `req_fake_${n}` };

    const known = req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/embeddings');
    if (!known) return send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } }, baseHeaders);
    const reply = queue.shift() ?? (handler ? await handler(recorded) : undefined);
    const delay = latency.ms + Math.random() * latency.jitter + (reply?.delayMs ?? 0);
    if (!(await wait(delay, res))) return;
    const headers = { ...baseHeaders, ...reply?.headers };

    if (!reply) {
      if (path === '/v1/embeddings') return embeddings(body, res, headers);
      // 400, not 500: an unscripted request must fail the test at once, not be retried into a timeout.
      return send(res, 400, { error: { message: 'fake-llm-server: no scripted reply for this request', type: 'invalid_request_error' } }, headers);
    }
    switch (reply.type) {
      case 'hang':
        return;
      case 'drop':
        return void req.socket.destroy();
      case 'large': {
        const pad = '@@pad@@';
        const [head, tail] = JSON.stringify(chatCompletion(n, body, { type: 'chat', content: pad })).split(pad) as [string, string];
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...headers });
        // Made lazily and read as fast as the client takes it; the pipeline stops when the client closes the socket.
        return void pipeline(Readable.from(padded(head, tail, reply.bytes)), res).catch(() => {});
      }
      case 'raw':
        return send(res, reply.status, reply.body, headers);
      case 'error':
        return send(res, reply.status, { error: { message: 'error', type: 'api_error', code: null, param: null, ...reply.error } }, headers);
      case 'chat':
        if (path !== '/v1/chat/completions') return send(res, 500, { error: { message: 'fake-llm-server: chat reply scripted for an embeddings request' } }, headers);
        return send(res, 200, chatCompletion(n, body, reply), headers);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: `fake-llm-server crashed: ${String(err)}` } }));
  });
  server.listen(0, '127.0.0.1');
  await EventEmitter.once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    /** Starts counting maxInFlight again from the requests in flight now. */
    resetMaxInFlight() {
      maxInFlight = inFlight;
    },
    /** Replies served in order, one per request, before the handler is consulted. */
    script(...replies: FakeReply[]) {
      queue.push(...replies);
    },
    /** Answers requests the script does not; returning undefined gives the default (embeddings, or a 400 for chat). */
    setHandler(fn: FakeHandler | null) {
      handler = fn;
    },
    setLatency(ms: number, jitter = 0) {
      latency = { ms, jitter };
    },
    /** Resolves once `count` requests have arrived in total: await it instead of sleeping. */
    waitForRequests(count: number): Promise<RecordedRequest[]> {
      if (requests.length >= count) return Promise.resolve(requests.slice());
      return new Promise((resolve) => {
        const onRequest = () => {
          if (requests.length < count) return;
          events.off('request', onRequest);
          resolve(requests.slice());
        };
        events.on('request', onRequest);
      });
    },
    chatRequests(): RecordedRequest[] {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    /** Closes even with hanging requests: their sockets are destroyed. */
    async close(): Promise<void> {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

export type FakeLlmServer = Awaited<ReturnType<typeof startFakeLlmServer>>;
