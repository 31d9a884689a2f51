// The one place a chat completion is sent: model resolved per call, budget reserved, retried, one ledger row per attempt.
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { LimitFunction } from 'p-limit';
import { pino, type Logger } from 'pino';
import { storableJson } from '../text/storable.js';
import { classifyAttempt, isChoice, NoCompletionError, noCompletion, readAnswerBody } from './answer-shape.js';
import { answerUsage, failedAttemptCharge } from './answer-usage.js';
import { worstCase, type Budget, type Reservation } from './budget.js';
import { BudgetExceededError, CandidatesErasedError, DeadlineExceededError, failureHint, ModelCallError, UnknownModelError } from './errors.js';
import { failureOutcome, type LedgerEntry, type LedgerOutcome, type LedgerSink } from './ledger.js';
import { costUsd, type ChatModelSpec, type ModelRegistry } from './model-registry.js';
import { callSignal } from './call-signal.js';
import { attemptFailure, logFailedAttempt, mayBeBilled, reportedCause, requestTimeout, withRetry } from './retry.js';
import type { AgentName, LlmSettings } from './settings.js';
import { addUsage } from './structured.js';

export type ResponseFormat = NonNullable<ChatCompletionCreateParamsNonStreaming['response_format']>;
export type LlmLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * One attempt as sent and as answered, for the audit trail and replay. The messages are already scrubbed and
 * fenced; `response` is the provider's raw answer (HTTP 200) and `error` what went wrong otherwise.
 */
export interface ModelExchange {
  agent: AgentName;
  orgId: string;
  runId: string | null;
  model: string;
  attempt: number;
  /** The candidates whose text is in the request (scorer: one; reranker: its batch), so erasure can find them. */
  candidateIds: string[];
  request: ChatCompletionCreateParamsNonStreaming;
  response: ChatCompletion | null;
  error: { status: number | null; message: string } | null;
  outcome: LedgerOutcome;
  requestId: string | null;
  latencyMs: number;
}

/** How the caller judges an answer; it decides the attempt's ledger outcome. */
export type Judgement = { outcome: 'ok' } | { outcome: 'invalid_output' | 'refused' | 'truncated'; issues: string[] };

export interface ChatRequest {
  agent: AgentName;
  orgId: string;
  runId: string | null;
  messages: ChatCompletionMessageParam[];
  responseFormat?: ResponseFormat;
  tools?: ChatCompletionTool[];
  /** Completion allowance (max_tokens); clamped to the model's maxOutputTokens. */
  maxTokens: number;
  budget?: Budget;
  signal?: AbortSignal;
  /** Epoch ms; the earlier of this and the budget's deadline bounds waits and request timeouts. */
  deadline?: number;
  judge?: (choice: ChatCompletion.Choice) => Judgement;
  /** Candidates whose text the request carries; copied onto the exchange. */
  candidateIds?: string[];
  /** Called once per attempt, answered or not; awaited, and a failure of it is logged, never thrown. */
  onExchange?: (exchange: ModelExchange) => Promise<void>;
  /** The run's logger (runId, orgId, iteration); the caller's own logger otherwise. */
  logger?: LlmLogger;
  /**
   * How the check of candidateIds (ChatCallerDeps.erasedAmong) reads the database: a worker's run waits out an outage
   * while its lease lasts (src/runs/while-leased.ts), as its other reads do. Without it, once.
   */
  read?: <T>(statement: () => Promise<T>) => Promise<T>;
}

export interface CallUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface ChatResult {
  message: ChatCompletionMessage;
  finishReason: ChatCompletion.Choice['finish_reason'];
  judgement: Judgement;
  /**
   * Every attempt of the call, as the ledger records them: the answer's usage plus what earlier attempts that may be
   * billed (timeouts, 504s, connections lost after sending) were charged. Caps over several calls add this up.
   */
  usage: CallUsage;
  model: string;
  requestId: string | null;
  attempts: number;
}

export interface ChatCallerDeps {
  client: OpenAI;
  registry: ModelRegistry;
  /** A function is read on every call, so a settings change reaches the next call without a restart. */
  settings: LlmSettings | (() => LlmSettings);
  ledger: LedgerSink;
  logger?: LlmLogger;
  /** Process-wide cap on in-flight model requests (a p-limit instance); backoff waits do not hold a slot. */
  limiter?: LimitFunction;
  now?: () => number;
  /**
   * Which of a request's candidates (ChatRequest.candidateIds) are erased, asked before each attempt is sent, once it
   * has its slot: a request that waited (for a slot, or between attempts) past its candidate's erasure is not sent.
   */
  erasedAmong?: (orgId: string, candidateIds: readonly string[]) => Promise<string[]>;
}

/** Sent with every request so proxies, provider logs and the fake server can tell agents apart. */
export const AGENT_HEADER = 'x-talent-matcher-agent';

export function defaultJudge(choice: ChatCompletion.Choice): Judgement {
  // Not the refusal's words: they are model-written and may repeat a candidate's details, and the issues go to the
  // ledger's error column and to logs. The audit trail keeps the answer as it came.
  if (choice.message.refusal) return { outcome: 'refused', issues: ['the model refused to answer'] };
  if (choice.finish_reason === 'length') return { outcome: 'truncated', issues: ['the answer was cut off at the token limit'] };
  return { outcome: 'ok' };
}

/**
 * A judge that throws on an answer it cannot read (content that is not a string, say) rejects that answer: the
 * attempt keeps its usage in the ledger and the caller re-asks within its bound, rather than the answer's cost
 * being lost and the run failing on it.
 */
function judgeSafely(judge: (choice: ChatCompletion.Choice) => Judgement, choice: ChatCompletion.Choice): Judgement {
  try {
    return judge(choice);
  } catch (err) {
    return { outcome: 'invalid_output', issues: [`the answer could not be read (${err instanceof Error ? err.name : 'error'})`] };
  }
}

export function createChatCaller(deps: ChatCallerDeps) {
  const logger = deps.logger ?? pino({ enabled: false });
  const now = deps.now ?? Date.now;
  const limit: <T>(fn: () => Promise<T>) => Promise<T> = deps.limiter ? (fn) => deps.limiter!(fn) : (fn) => fn();
  const currentSettings = (): LlmSettings => (typeof deps.settings === 'function' ? deps.settings() : deps.settings);

  async function record(entry: LedgerEntry, log: LlmLogger = logger): Promise<void> {
    try {
      await deps.ledger.record(entry);
    } catch (err) {
      // A ledger outage must not throw away an answer that was already paid for; the gap is logged loudly.
      log.error({ err, entry }, 'ledger write failed');
    }
  }

  async function report(req: ChatRequest, exchange: Omit<ModelExchange, 'agent' | 'orgId' | 'runId' | 'candidateIds'>): Promise<void> {
    if (!req.onExchange) return;
    try {
      await req.onExchange({ agent: req.agent, orgId: req.orgId, runId: req.runId, candidateIds: req.candidateIds ?? [], ...exchange });
    } catch (err) {
      // Like the ledger: an audit write that failed must not throw away a paid answer, but the gap is loud.
      (req.logger ?? logger).error({ err, agent: req.agent, attempt: exchange.attempt }, 'audit trail write failed');
    }
  }

  function modelFor(agent: AgentName): ChatModelSpec {
    const id = currentSettings().agents[agent].model;
    const model = deps.registry.chat(id);
    if (!model) throw new UnknownModelError([{ agent, model: id, reason: 'unknown' }], deps.registry.models.map((m) => m.id));
    return model;
  }

  async function call(req: ChatRequest): Promise<ChatResult> {
    const settings = currentSettings();
    const model = modelFor(req.agent);
    const maxTokens = Math.min(req.maxTokens, model.maxOutputTokens);
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: model.id,
      messages: req.messages,
      temperature: settings.agents[req.agent].temperature,
      // max_tokens rather than max_completion_tokens: every OpenAI-compatible server (Ollama, vLLM, llama.cpp) reads it.
      max_tokens: maxTokens,
      ...(req.tools && req.tools.length > 0 ? { tools: req.tools } : {}),
      ...(req.responseFormat ? { response_format: req.responseFormat } : {}),
    };
    const base = { orgId: req.orgId, runId: req.runId, agent: req.agent, model: model.id };
    const log = req.logger ?? logger;
    const zero = { promptTokens: 0, cachedTokens: 0, completionTokens: 0, costUsd: 0 };
    const promptText = JSON.stringify({ messages: body.messages, tools: body.tools, response_format: body.response_format });
    // The messages' words, for cutting what an error body echoes of them (withoutEcho). Only the messages can hold a
    // candidate's text: the tools and the response format are our own schemas, whose words ("response_format type
    // json_schema") a server's refusal must be able to name.
    const sent = () => body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''))).join('\n');
    const deadlines = [req.deadline, req.budget?.deadline].filter((d): d is number => d !== undefined);
    const deadline = deadlines.length > 0 ? Math.min(...deadlines) : undefined;

    const worst = worstCase(model, promptText, maxTokens);
    // A call the budget or its deadline refused: a row of its own (attempt 0: nothing more was sent), then the refusal.
    const refused = async (err: Error): Promise<never> => {
      await record({ ...base, ...zero, latencyMs: 0, outcome: 'budget', requestId: null, attempt: 0, error: err.message }, log);
      throw err;
    };
    let reservation: Reservation | null = null;
    if (req.budget) {
      try {
        reservation = req.budget.reserve(worst);
      } catch (err) {
        if (err instanceof BudgetExceededError) await refused(err);
        throw err;
      }
    }

    let attempts = 0;
    // Attempts that reached the client (the others were stopped before, with nothing sent and nothing to bill).
    let handedToClient = 0;
    // A failure of ours before a request was sent (the call aborted in the queue, its candidates erased, or the check
    // of them failed): passed on as it is, not as the provider's failure, and not retried.
    let unsent: unknown = undefined;
    const spent = { tokens: 0, costUsd: 0 };
    // What the call's failed attempts were charged; the answer's own usage is added to it when it returns.
    let failedCharges: CallUsage = zero;
    try {
      const answer = await withRetry(
        async (attempt) => {
          // A retry is billed like a first request: it must fit beside what the earlier attempts were charged.
          if (attempt > 1 && reservation) reservation = req.budget!.cover(reservation, { tokens: spent.tokens + worst.tokens, costUsd: spent.costUsd + worst.costUsd });
          attempts = attempt;
          return limit(async () => {
            // Aborted while it waited for its slot (its run cancelled, say): not sent, and no call to record or bill,
            // as withRetry does between attempts.
            if (req.signal?.aborted) throw (unsent = req.signal.reason);
            if (deps.erasedAmong && req.candidateIds?.length) {
              const check = deps.erasedAmong;
              const ids = req.candidateIds;
              const erased = await (req.read ? req.read(() => check(req.orgId, ids)) : check(req.orgId, ids)).catch((err: unknown) => {
                throw (unsent = err);
              });
              if (erased.length) throw (unsent = new CandidatesErasedError(erased));
            }
            const started = now();
            const timeout = requestTimeout(settings.timeoutMs, deadline, started);
            let requestId: string | null = null;
            // A signal aborted already is refused by the SDK before anything is sent: such an attempt costs nothing.
            const abortedBeforeSend = req.signal?.aborted === true;
            // The request's own signal, aborted with the run's (call-signal.ts says why not the run's itself).
            const sending = callSignal(req.signal);
            try {
              handedToClient++;
              const { data: answered, request_id } = await deps.client.chat.completions
                .create(body, { signal: sending.signal, timeout, headers: { [AGENT_HEADER]: req.agent } })
                .withResponse();
              requestId = request_id;
              // A NUL or a lone surrogate in the answer is replaced (src/text/storable.ts): as it came, neither the
              // trail's record of the answer nor a candidate scored from it could be written.
              const raw = storableJson(answered);
              const latencyMs = now() - started;
              // The body is the provider's and untrusted: a missing choices list or a message that is no object must
              // not throw here, before the row below, or a paid answer would be recorded as a free failure. A body that
              // came as text (a stream nobody asked for, JSON sent as text/plain) is read as the completion it holds.
              const data = readAnswerBody(raw) as Partial<ChatCompletion> | null | undefined;
              const first: unknown = Array.isArray(data?.choices) ? data.choices[0] : undefined;
              const choice = isChoice(first) ? first : undefined;
              const { usage, estimated } = answerUsage(data?.usage, promptText, choice?.message, model.contextWindow);
              const cost = costUsd(model, usage);
              spent.tokens += usage.promptTokens + usage.completionTokens;
              spent.costUsd += cost;
              const row = { ...base, ...usage, costUsd: cost, latencyMs, requestId, attempt, ...(estimated ? { tokensEstimated: true } : {}) };
              // The trail keeps the answer as it came; a replay serves it back and reads it the same way.
              const exchange = { model: model.id, attempt, request: body, response: raw, requestId, latencyMs };
              if (!choice) {
                const failure = noCompletion(raw, data, sent());
                await record({ ...row, outcome: 'error', error: failure.message }, log);
                await report(req, { ...exchange, error: { status: 200, message: failure.message }, outcome: 'error' });
                throw failure;
              }
              const judgement = judgeSafely(req.judge ?? defaultJudge, choice);
              await record({ ...row, outcome: judgement.outcome, ...(judgement.outcome === 'ok' ? {} : { error: judgement.issues.join('; ').slice(0, 1000) }) }, log);
              await report(req, { ...exchange, error: null, outcome: judgement.outcome });
              return { choice, judgement, usage: { ...usage, costUsd: cost }, requestId };
            } catch (err) {
              // Its ledger row is written already.
              if (err instanceof NoCompletionError) throw err;
              const failure = classifyAttempt(err);
              const { message, requestId: errorRequestId } = attemptFailure(err, requestId, sent());
              const latencyMs = now() - started;
              // A request that was sent and never answered may still be billed (a slow provider bills every timed-out
              // attempt): it is charged its estimated prompt, the reservation's estimate, and the row says so.
              const charged = !abortedBeforeSend && mayBeBilled(err, failure) ? failedAttemptCharge(model, promptText) : null;
              if (charged) {
                spent.tokens += charged.promptTokens;
                spent.costUsd += charged.costUsd;
                failedCharges = addUsage(failedCharges, charged);
              }
              const usage = charged ? { ...charged, tokensEstimated: true } : zero;
              const outcome = failureOutcome(failure);
              await record({ ...base, ...usage, latencyMs, outcome, requestId: errorRequestId, attempt, error: message }, log);
              const error = { status: failure.status, message };
              await report(req, { model: model.id, attempt, request: body, response: null, error, outcome, requestId: errorRequestId, latencyMs });
              throw err;
            } finally {
              sending.done();
            }
          });
        },
        {
          maxRetries: settings.maxRetries,
          baseMs: settings.retryBaseMs,
          maxMs: settings.retryMaxMs,
          deadline,
          signal: req.signal,
          // The deadline is on this clock: the retries' checks against it must read the same one.
          now,
          classify: classifyAttempt,
          onAttempt: (r) => {
            if (r.error === null || r.error === unsent) return;
            logFailedAttempt(log, r.failure, { agent: req.agent, model: model.id, attempt: r.attempt, failure: r.failure, willRetry: r.willRetry, delayMs: r.delayMs }, 'model');
          },
        },
      );
      if (reservation) req.budget?.settle(reservation, spent);
      return {
        message: answer.choice.message,
        finishReason: answer.choice.finish_reason,
        judgement: answer.judgement,
        usage: addUsage(failedCharges, answer.usage),
        model: model.id,
        requestId: answer.requestId,
        attempts,
      };
    } catch (err) {
      if (reservation) {
        if (handedToClient === 0) req.budget?.release(reservation);
        else req.budget?.settle(reservation, spent);
      }
      if (err === unsent) throw err;
      // A retry the budget refused, or a request left too little time by its deadline, ends the call as a refusal at
      // its reservation would: a budget stop, not a failure, with its row.
      if (err instanceof DeadlineExceededError || err instanceof BudgetExceededError) await refused(err);
      const failure = classifyAttempt(err);
      const hint = failureHint(failure.status, body, err instanceof Error ? err.message : '', failure.kind);
      throw new ModelCallError({ agent: req.agent, model: model.id, status: failure.status, retryable: failure.retryable, attempts, cause: reportedCause(err), hint, sent: sent(), kind: failure.kind, retryAfterMs: failure.retryAfterMs });
    }
  }

  return { call, modelFor, settings: currentSettings };
}

export type ChatCaller = ReturnType<typeof createChatCaller>;
