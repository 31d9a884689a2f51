// The multi-turn tool loop: model turn, validated tool calls, results fed back; iteration, token and attempt caps in code.
import { createHash } from 'node:crypto';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { pino } from 'pino';
import type { z } from 'zod';
import { logSafeText } from '../text/log-safe-text.js';
import { estimateTokens, type Budget } from './budget.js';
import { defaultJudge, type CallUsage, type ChatCaller, type ChatRequest, type ChatResult, type LlmLogger } from './chat.js';
import { StructuredOutputError, ToolLoopError } from './errors.js';
import { fence, neutraliseFenceTags } from './fence.js';
import type { AgentName } from './settings.js';
import { addUsage, interpretAnswer, judgementOf, NO_USAGE, reaskMessages, responseFormatFor, type Interpretation } from './structured.js';
import { ToolFailure, validateToolArguments, type ToolRegistry } from './tools.js';

export interface RunToolsOptions<T> {
  caller: ChatCaller;
  agent: AgentName;
  orgId: string;
  runId: string | null;
  registry: ToolRegistry;
  /** The opening messages (system + fenced user prompt). They are copied, never mutated. */
  messages: ChatCompletionMessageParam[];
  /** Model turns, re-asks included. */
  maxIterations: number;
  /** Cumulative prompt + completion tokens over all turns, retried attempts included (as the ledger records them). */
  maxTokens: number;
  /** Completion allowance of one turn. */
  maxTokensPerTurn: number;
  finalSchema?: z.ZodType<T>;
  schemaName?: string;
  budget?: Budget;
  signal?: AbortSignal;
  deadline?: number;
  logger?: LlmLogger;
  onExchange?: ChatRequest['onExchange'];
  /** Called as each re-ask (a turn after an invalid final answer) is sent, whatever comes of it. */
  onReask?: () => void;
  now?: () => number;
}

export interface ToolCallRecord {
  id: string;
  name: string;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

export interface RunToolsResult<T> {
  content: string | null;
  /** The final answer validated against finalSchema; undefined without one. */
  value: T | undefined;
  finishReason: ChatResult['finishReason'];
  transcript: ChatCompletionMessageParam[];
  iterations: number;
  usage: CallUsage;
  toolCalls: ToolCallRecord[];
  model: string;
  /** Re-asks after an invalid final answer. */
  reasks: number;
}

// A tool result is read by the model on its next turn; bigger results would flood its context.
const MAX_RESULT_CHARS = 20_000;
/**
 * Tool calls one turn may make: those after them are dropped from the transcript, unanswered. A turn of 200,000 calls
 * (14 MB, within the answer cap) was answered one by one, each logged, and held the process for 14 s. A model that
 * needs more than this in one turn can ask again on the next, within the iteration and attempt caps.
 */
export const MAX_CALLS_PER_TURN = 16;

type ToolErrorKind = 'unknown_tool' | 'invalid_arguments' | 'attempt_cap' | 'timeout' | 'tool_failed' | 'result_too_large';
type ToolOutcome = { ok: true; content: string } | { ok: false; kind: ToolErrorKind; message: string; issues?: string[] };

/** A call id as providers write them ("call_abc123", Mistral's nine letters and digits, none at all). */
const PLAIN_CALL_ID = /^[A-Za-z0-9_.:-]{0,64}$/;

/**
 * The id a call goes back with. The id is model-written text that the next turn's chat template may print (Mistral's
 * does): one that could carry a fence tag or a template token is replaced by one of ours, the same for the call and
 * for the result that answers it.
 */
function callId(raw: string): string {
  return PLAIN_CALL_ID.test(raw) ? raw : `call_${createHash('sha256').update(raw).digest('hex').slice(0, 24)}`;
}

/** The name and arguments of a call as sent, without trusting its shape: the model's output is untrusted. */
function callParts(call: ChatCompletionMessageToolCall): { id: string; type: unknown; name: string | null; args: unknown } {
  const c = call as unknown as Record<string, unknown> | null;
  const id = callId(typeof c?.id === 'string' ? c.id : '');
  const body = c?.type === 'custom' ? c.custom : c?.function;
  const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  // A call without its type but with a function (Azure AI Inference, some vLLM and Ollama setups) is a function call.
  const type = (c?.type === undefined || c?.type === null) && body !== null && typeof body === 'object' ? 'function' : c?.type;
  return { id, type, name: typeof fields.name === 'string' ? fields.name : null, args: fields.arguments };
}

/**
 * A tool call as it goes back in the transcript: in the wire shape the provider accepts, whatever shape the model
 * sent, so the error result that answers it can be delivered (a malformed call must not make the next turn a 400).
 * Its name and arguments are model-written text the next turn reads, so they are neutralised like a re-ask's echo;
 * the handler has already run on the arguments as sent.
 */
function wireToolCall(call: ChatCompletionMessageToolCall): ChatCompletionMessageToolCall {
  const { id, type, name, args } = callParts(call);
  if (type === 'custom' && name !== null) {
    const input = (call as { custom?: { input?: unknown } }).custom?.input;
    return { id, type: 'custom', custom: { name: neutraliseFenceTags(name), input: neutraliseFenceTags(typeof input === 'string' ? input : '') } };
  }
  const text = typeof args === 'string' ? args : args === undefined || args === null ? '' : (JSON.stringify(args) ?? '');
  return { id, type: 'function', function: { name: neutraliseFenceTags(name ?? ''), arguments: neutraliseFenceTags(text) } };
}

/**
 * The model's turn as it goes back on the next request. A model is untrusted (a role can talk it into writing a
 * fence tag or a chat-template token): its text returns neutralised, as ask()'s re-ask echo does, so it cannot
 * close a fence or open a turn on a server whose template reads such tokens.
 */
function assistantParam(m: ChatCompletionMessage, calls: ChatCompletionMessageToolCall[] = []): ChatCompletionAssistantMessageParam {
  const content = typeof m.content === 'string' ? neutraliseFenceTags(m.content) : null;
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls.map(wireToolCall) } : {}) };
}

/**
 * The tool calls a turn asks for, or none. The answer is untrusted: `tool_calls` that is not a list (a string, an
 * object) asks for nothing, and the turn is read as a final answer, which its schema then judges and re-asks.
 */
function toolCallsOf(m: ChatCompletionMessage): ChatCompletionMessageToolCall[] {
  const calls: unknown = m.tool_calls;
  return Array.isArray(calls) ? (calls as ChatCompletionMessageToolCall[]) : [];
}

/**
 * JSON of a tool result with every string in it, keys included, neutralised: results carry text users wrote (a
 * candidate's skills) and text the model wrote (an unknown tool name, an invalid key), so a fence-like tag or a
 * chat-template token in them is defanged, string by string, keeping the JSON well-formed.
 */
function neutralJson(value: unknown): string {
  const text = JSON.stringify(value ?? null, (_key, v: unknown) => {
    if (typeof v === 'string') return neutraliseFenceTags(v);
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => neutraliseFenceTags(k) !== k)) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [neutraliseFenceTags(k), x]));
    }
    return v;
  });
  return text ?? 'null';
}

/** A tool message's content: the result's JSON inside a <tool_result> fence, like every other text the model reads as data. */
export function renderToolResult(json: string): string {
  return fence('tool_result', json);
}

class ToolTimeout extends Error {}

export async function runTools<T = never>(opts: RunToolsOptions<T>): Promise<RunToolsResult<T>> {
  const { caller, agent, registry } = opts;
  const logger = opts.logger ?? pino({ enabled: false });
  const now = opts.now ?? Date.now;
  const schemaName = opts.schemaName ?? 'answer';
  const reaskLimit = caller.settings().reaskLimit;
  const transcript: ChatCompletionMessageParam[] = [...opts.messages];
  const toolCalls: ToolCallRecord[] = [];
  const handlerRuns = new Map<string, number>();
  let usage = NO_USAGE;
  let tokensUsed = 0;
  let reasks = 0;
  // The turn about to be sent re-asks for a valid final answer.
  let reasking = false;

  async function execute(call: ChatCompletionMessageToolCall): Promise<ToolOutcome> {
    const { id, type, name, args } = callParts(call);
    if (type !== 'function') return { ok: false, kind: 'unknown_tool', message: 'only function tools exist here' };
    if (name === null) return { ok: false, kind: 'unknown_tool', message: `the call names no tool; available: ${registry.names.join(', ')}` };
    const tool = registry.find(name);
    if (!tool) return { ok: false, kind: 'unknown_tool', message: `no tool named "${name}"; available: ${registry.names.join(', ')}` };
    const runs = handlerRuns.get(tool.name) ?? 0;
    if (runs >= tool.maxAttempts) {
      return { ok: false, kind: 'attempt_cap', message: `${tool.name} may run at most ${tool.maxAttempts} time(s) here; answer with what you have` };
    }
    const check = validateToolArguments(tool, args);
    if (!check.ok) return { ok: false, kind: 'invalid_arguments', message: check.error, issues: check.issues };
    // Attempts count handler runs: a rejected call costs the model a turn, not one of the tool's runs.
    handlerRuns.set(tool.name, runs + 1);
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new ToolTimeout());
        reject(new ToolTimeout());
      }, tool.timeoutMs);
    });
    try {
      const value = await Promise.race([tool.handler(check.args, { orgId: opts.orgId, runId: opts.runId, agent, toolCallId: id, signal: controller.signal }), timeout]);
      const content = neutralJson(value);
      if (content.length > MAX_RESULT_CHARS) return { ok: false, kind: 'result_too_large', message: `result of ${content.length} chars exceeds ${MAX_RESULT_CHARS}` };
      return { ok: true, content };
    } catch (err) {
      // A cancelled run stops the loop; everything else is news for the model, not a crash.
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (err instanceof ToolTimeout) return { ok: false, kind: 'timeout', message: `${tool.name} gave no result within ${tool.timeoutMs} ms` };
      logger.warn({ err, agent, tool: tool.name, toolCallId: logSafeText(id, 64) }, 'tool handler failed');
      return { ok: false, kind: 'tool_failed', message: err instanceof ToolFailure ? err.message : `${tool.name} failed` };
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onOuterAbort);
    }
  }

  async function runToolCall(call: ChatCompletionMessageToolCall): Promise<ChatCompletionToolMessageParam> {
    const started = now();
    const outcome = await execute(call);
    const durationMs = now() - started;
    const { id, name } = callParts(call);
    const error = outcome.ok ? null : outcome.kind;
    toolCalls.push({ id, name: name ?? '', ok: outcome.ok, error, durationMs });
    // The name and the id are the model's words: a log line names a tool of the allow-list, and the id as a safe clip.
    const tool = name !== null && registry.find(name) ? name : null;
    logger.info({ agent, tool, toolCallId: logSafeText(id, 64), durationMs, ok: outcome.ok, error }, 'tool call');
    const json = outcome.ok
      ? outcome.content
      : neutralJson({ error: outcome.kind, message: outcome.message, ...(outcome.issues ? { issues: outcome.issues } : {}) });
    return { role: 'tool', tool_call_id: id, content: renderToolResult(json) };
  }

  for (let iteration = 1; iteration <= opts.maxIterations; iteration++) {
    const tools = registry.toolDefinitions();
    const responseFormat = opts.finalSchema ? responseFormatFor(opts.finalSchema, schemaName, caller.modelFor(agent)) : undefined;
    // Checked before the turn is sent, against its worst case, so the cap holds rather than being noticed afterwards.
    // The worst case is one attempt; a turn's retries the provider may bill are counted once the turn returns.
    const worst = estimateTokens(JSON.stringify({ messages: transcript, tools, response_format: responseFormat })) + opts.maxTokensPerTurn;
    if (tokensUsed + worst > opts.maxTokens) throw new ToolLoopError({ agent, limit: 'tokens', cap: opts.maxTokens, used: tokensUsed });

    const box: { result?: Interpretation<T> } = {};
    const finalSchema = opts.finalSchema;
    if (reasking) opts.onReask?.();
    reasking = false;
    const answer = await caller.call({
      agent,
      orgId: opts.orgId,
      runId: opts.runId,
      messages: [...transcript],
      tools,
      responseFormat,
      maxTokens: opts.maxTokensPerTurn,
      budget: opts.budget,
      signal: opts.signal,
      deadline: opts.deadline,
      onExchange: opts.onExchange,
      logger: opts.logger,
      judge: (choice) =>
        finalSchema && toolCallsOf(choice.message).length === 0
          ? judgementOf((box.result = interpretAnswer(finalSchema, choice)))
          : defaultJudge(choice),
    });
    usage = addUsage(usage, answer.usage);
    tokensUsed += answer.usage.promptTokens + answer.usage.completionTokens;
    const message = answer.message;

    const asked = toolCallsOf(message);
    if (asked.length > 0) {
      const calls = asked.slice(0, MAX_CALLS_PER_TURN);
      if (asked.length > calls.length) logger.warn({ agent, calls: asked.length, answered: calls.length }, 'tool calls past the per-turn cap dropped');
      transcript.push(assistantParam(message, calls));
      // Sequential on purpose: attempt caps and the transcript order stay deterministic.
      for (const call of calls) transcript.push(await runToolCall(call));
      continue;
    }

    const done = (value: T | undefined): RunToolsResult<T> => ({
      content: message.content,
      value,
      finishReason: answer.finishReason,
      transcript,
      iterations: iteration,
      usage,
      toolCalls,
      model: answer.model,
      reasks,
    });
    if (!finalSchema) {
      transcript.push(assistantParam(message));
      return done(undefined);
    }
    const result = box.result;
    if (result?.ok) {
      transcript.push(assistantParam(message));
      return done(result.value);
    }
    const failure = result ?? { raw: message.content, issues: ['no final answer was judged'] };
    if (++reasks > reaskLimit) {
      throw new StructuredOutputError({ agent, model: answer.model, raw: failure.raw, issues: failure.issues, attempts: reasks });
    }
    transcript.push(...reaskMessages(failure, schemaName));
    reasking = true;
  }
  throw new ToolLoopError({ agent, limit: 'iterations', cap: opts.maxIterations, used: opts.maxIterations });
}
