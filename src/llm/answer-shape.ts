// How an HTTP 200 answer of a server that only mostly follows OpenAI's API is read: a stream nobody asked for, JSON sent
// as text, an error in the body (named, and retried as its code says), reasoning fields, a <think> block before the answer.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { logSafeText } from '../text/log-safe-text.js';
import { classifyFailure, type FailureClass } from './retry.js';
import { safeJsonParse } from './safe-json.js';

/**
 * The reasoning a server returns beside the answer: `reasoning_content` (vLLM before 0.10, DeepSeek, llama.cpp) or
 * `reasoning` (Ollama, vLLM 0.10 and later, OpenRouter). The model generated it: it is billed as completion tokens.
 */
export function reasoningText(message: unknown): string {
  const m = (message ?? {}) as { reasoning_content?: unknown; reasoning?: unknown };
  return [m.reasoning_content, m.reasoning].filter((v): v is string => typeof v === 'string').join('');
}

const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

/**
 * The answer without the reasoning a thinking model (deepseek-r1, qwen3, QwQ) writes before it when the server leaves
 * it in the content (Ollama before it had a reasoning field, servers without a reasoning parser). Either the content
 * opens with <think>, or the chat template opened the block in the prompt and the content holds its end only. An
 * answer that opens as JSON or a code fence is never cut, whatever its strings say; the reasoning is not looked into.
 */
export function withoutReasoning(text: string): string {
  const start = text.trimStart();
  if (start.startsWith('{') || start.startsWith('[') || start.startsWith('`')) return text;
  const end = start.indexOf(THINK_CLOSE);
  if (end < 0) return text;
  const opened = start.indexOf(THINK_OPEN);
  // A <think> opened after some text, not at the start, is no block of the model's template: left as it is.
  if (opened > 0 && opened < end) return text;
  return start.slice(end + THINK_CLOSE.length);
}

/** An error a server put in a 200 answer's body (`{"error": {...}}` or `{"error": "..."}`), as message and code. */
export function errorInBody(data: unknown): { message: string; code: unknown } | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  const error = (data as { error?: unknown }).error;
  if (typeof error === 'string' && error.trim() !== '') return { message: error, code: null };
  if (error === null || typeof error !== 'object') return null;
  const { message, code, type } = error as { message?: unknown; code?: unknown; type?: unknown };
  const text = typeof message === 'string' && message.trim() !== '' ? message : typeof type === 'string' ? type : JSON.stringify(error);
  return { message: text ?? 'an error', code: code ?? null };
}

/** The HTTP status an error body's numeric code stands for, if it is one (OpenRouter and some gateways send them). */
export function statusOfCode(code: unknown): number | null {
  const n = typeof code === 'number' ? code : typeof code === 'string' && /^\d{3}$/.test(code) ? Number(code) : NaN;
  return Number.isInteger(n) && n >= 400 && n <= 599 ? n : null;
}

// A stream nobody asked for may still be long; a tool call index past this is no tool call of a real model.
const MAX_STREAMED_TOOL_CALLS = 64;

interface StreamedToolCall {
  id: string;
  type: string;
  function: { name: string; arguments: string };
}

/**
 * The chat completion an SSE body streams (`data: {chunk}` events, `data: [DONE]`), assembled as the server would have
 * answered without streaming: the first choice's content, refusal, reasoning and tool calls concatenated from their
 * deltas, its finish reason, and the usage of whichever chunk carried one. An `error` event is answered as such. Null
 * when the text holds no chunk. Chunks are parsed like any untrusted JSON; the body is already size-capped.
 */
export function completionFromEventStream(text: string): Record<string, unknown> | null {
  let chunks = 0;
  let head: Record<string, unknown> = {};
  let usage: unknown;
  let finishReason: unknown = null;
  const parts = { content: '', refusal: '', reasoning: '' };
  const seen = { content: false, refusal: false, reasoning: false };
  const toolCalls = new Map<number, StreamedToolCall>();
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data === '' || data.trim() === '[DONE]') continue;
    const parsed = safeJsonParse(data, { maxChars: Infinity, forbiddenKeys: 'strip' });
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') continue;
    const chunk = parsed.value as Record<string, unknown>;
    if (errorInBody(chunk)) return { error: chunk.error };
    chunks++;
    if (chunks === 1) head = { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    const list: unknown[] = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = (list.find((c) => (c as { index?: unknown } | null)?.index === 0) ?? list[0]) as { delta?: Record<string, unknown>; finish_reason?: unknown } | null | undefined;
    if (choice === null || typeof choice !== 'object') continue;
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    for (const [key, from] of [['content', delta.content], ['refusal', delta.refusal], ['reasoning', typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning]] as const) {
      if (typeof from === 'string') {
        parts[key] += from;
        seen[key] = true;
      }
    }
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const c = (call ?? {}) as { index?: unknown; id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
      const index = typeof c.index === 'number' && Number.isInteger(c.index) ? c.index : toolCalls.size;
      if (index < 0 || index >= MAX_STREAMED_TOOL_CALLS) continue;
      const into = toolCalls.get(index) ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
      if (typeof c.id === 'string') into.id = c.id;
      if (typeof c.type === 'string') into.type = c.type;
      if (typeof c.function?.name === 'string') into.function.name += c.function.name;
      if (typeof c.function?.arguments === 'string') into.function.arguments += c.function.arguments;
      toolCalls.set(index, into);
    }
  }
  if (chunks === 0) return null;
  const calls = [...toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  const message = {
    role: 'assistant',
    content: seen.content ? parts.content : null,
    refusal: seen.refusal ? parts.refusal : null,
    ...(seen.reasoning ? { reasoning_content: parts.reasoning } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  return {
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    ...(usage === undefined ? {} : { usage }),
  };
}

/**
 * The answer as a completion object to read. The SDK hands over a body that was not declared JSON as text: a JSON
 * completion a server sent as text/plain, or an event stream sent to a request that asked for none. Anything else is
 * returned as it came (and found to have no choices).
 */
export function readAnswerBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const text = body.trimStart();
  if (text.startsWith('{')) {
    const parsed = safeJsonParse(text, { maxChars: Infinity, maxDepth: 64, forbiddenKeys: 'strip' });
    return parsed.ok ? parsed.value : body;
  }
  return completionFromEventStream(body) ?? body;
}

/**
 * An HTTP 200 that held no chat completion. The chat caller has written its ledger row when it throws one. It is
 * retried only when an error in the body carries a code saying the status would have been retryable (429, 5xx).
 */
export class NoCompletionError extends Error {
  constructor(
    message: string,
    readonly failure: FailureClass = { kind: 'other', retryable: false, status: 200, retryAfterMs: null },
  ) {
    super(message);
    this.name = 'NoCompletionError';
  }
}

/** classifyFailure, and a NoCompletionError as it says. */
/** A choice with a message object: the least a judge may read without guarding every property. */
export function isChoice(value: unknown): value is ChatCompletion.Choice {
  const message = (value as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'object' && message !== null;
}

export function classifyAttempt(err: unknown): FailureClass {
  return err instanceof NoCompletionError ? err.failure : classifyFailure(err);
}

/**
 * Why an HTTP 200 answer held no chat completion, in words an operator can act on, and how to treat it. The server's
 * own words are the provider's (they may echo the request): made fit for a log, as an error status's are.
 */
export function noCompletion(raw: unknown, answer: unknown, sent = ''): NoCompletionError {
  const error = errorInBody(answer);
  if (error) {
    const status = statusOfCode(error.code);
    const kind = status === 429 ? 'rate_limited' : status !== null && status >= 500 ? 'server' : 'other';
    const code = error.code === null ? '' : ` (code ${logSafeText(String(error.code), 40)})`;
    return new NoCompletionError(`the server answered HTTP 200 with an error${code}: ${logSafeText(error.message, 300, sent)}`, { kind, retryable: kind !== 'other', status: 200, retryAfterMs: null });
  }
  if (typeof raw === 'string') return new NoCompletionError(`the answer was not a chat completion: ${raw.length} characters of text that is neither JSON nor an event stream`);
  return new NoCompletionError('answer had no choices');
}
