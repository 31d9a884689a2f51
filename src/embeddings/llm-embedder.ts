// The endpoint's embeddings: batched, through our retry layer and concurrency cap, one ledger row per attempt;
// for a run, within its budget and deadline and under its id.
import { errorInBody } from '../llm/answer-shape.js';
import { estimateTokens, reportedTokens, type Reservation } from '../llm/budget.js';
import { AGENT_HEADER, type ChatCallerDeps } from '../llm/chat.js';
import { BudgetExceededError, DeadlineExceededError, failureHint, ModelCallError, UnknownModelError } from '../llm/errors.js';
import { failureOutcome, type LedgerEntry } from '../llm/ledger.js';
import { costUsd } from '../llm/model-registry.js';
import { callSignal } from '../llm/call-signal.js';
import { attemptFailure, classifyFailure, logFailedAttempt, mayBeBilled, reportedCause, requestTimeout, withRetry } from '../llm/retry.js';
import type { LlmSettings } from '../llm/settings.js';
import { logSafeText } from '../text/log-safe-text.js';
import { prefixUnits } from '../text/storable.js';
import type { EmbedOptions, Embedder } from './embedder.js';

/** OpenAI accepts up to 2048 inputs per request; 256 keeps one request's body and latency modest on any server. */
export const EMBEDDING_BATCH_SIZE = 256;
/**
 * A request's inputs add up to at most this many tokens, by our estimate (estimateTokens: a token per 3 characters,
 * more than English text has): OpenAI refuses a request over 300,000, and a batch of 256 long resumes passes that.
 */
export const EMBEDDING_BATCH_MAX_TOKENS = 150_000;
/** The ledger's agent name for embedding calls: a run's (its search queries, runId set) or an organisation's (ingestion). */
export const EMBEDDER_AGENT = 'embedder';

export interface LlmEmbedOptions extends EmbedOptions {
  /**
   * The organisation the call is charged to (ledger rows need one). Callers that know it should pass it:
   * ingestion and search both do. Without it the embedder's defaultOrgId is charged; without that, the
   * attempt is only logged: no ledger row is written (a row needs an organisation) and no metric moves.
   */
  orgId?: string;
}

/** What the chat caller needs (client, registry, settings, ledger, limiter), plus the embedder's own knobs. */
export interface LlmEmbedderDeps extends ChatCallerDeps {
  batchSize?: number;
  batchMaxTokens?: number;
  defaultOrgId?: string;
}

/** What a vector's element must be for pgvector, which stores single-precision floats, to take it. */
const storable = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= 3.4028234663852886e38;

/** The provider answered, but not with one vector of the model's dimension per input: retrying will not fix that. */
class EmbeddingShapeError extends Error {
  override name = 'EmbeddingShapeError';
}

export function createLlmEmbedder(deps: LlmEmbedderDeps): Embedder & { embed(texts: string[], opts?: LlmEmbedOptions): Promise<number[][]> } {
  const current = (): LlmSettings => (typeof deps.settings === 'function' ? deps.settings() : deps.settings);
  // Fixed at construction, unlike chat models: vectors of two models must never share an index.
  const modelId = current().embeddingModel;
  const model = deps.registry.embedding(modelId);
  if (!model) throw new UnknownModelError([{ agent: EMBEDDER_AGENT, model: modelId, reason: 'unknown or non-embedding' }], deps.registry.models.map((m) => m.id));
  const batchSize = deps.batchSize ?? EMBEDDING_BATCH_SIZE;
  const batchMaxTokens = deps.batchMaxTokens ?? EMBEDDING_BATCH_MAX_TOKENS;
  // An input longer than the model reads is refused whole by some servers (OpenAI: 8,191 tokens): it is cut to the
  // model's context window by our estimate. The vector then stands for the text's start; full-text search reads all.
  const maxInputChars = model.contextWindow * 3;
  const now = deps.now ?? Date.now;
  const limit: <T>(fn: () => Promise<T>) => Promise<T> = deps.limiter ? (fn) => deps.limiter!(fn) : (fn) => fn();
  let warnedUnattributed = false;

  async function record(entry: Omit<LedgerEntry, 'orgId' | 'runId' | 'agent' | 'model'>, orgId: string | undefined, runId: string | null, log = deps.logger): Promise<void> {
    const full = { ...entry, orgId: orgId ?? '', runId, agent: EMBEDDER_AGENT, model: model!.id };
    if (!orgId) {
      if (!warnedUnattributed) log?.warn({ agent: EMBEDDER_AGENT }, 'embedding call has no organisation: its usage is logged, not written to the ledger');
      warnedUnattributed = true;
      log?.info({ entry: full }, 'unattributed embedding call');
      return;
    }
    try {
      await deps.ledger.record(full);
    } catch (err) {
      // As in chat.ts: a ledger outage must not throw away vectors already paid for.
      log?.error({ err, entry: full }, 'ledger write failed');
    }
  }

  async function embedBatch(batch: string[], opts: LlmEmbedOptions): Promise<number[][]> {
    const settings = current();
    const orgId = opts.orgId ?? deps.defaultOrgId;
    const runId = opts.runId ?? null;
    const log = opts.logger ?? deps.logger;
    const deadlines = [opts.deadline, opts.budget?.deadline].filter((d): d is number => d !== undefined);
    const deadline = deadlines.length > 0 ? Math.min(...deadlines) : undefined;
    // The batch's input at our conservative estimate: what a run's budget reserves, and what a lost attempt is charged.
    const estimated = estimateTokens(batch.join('\n'));
    const estimatedCost = costUsd(model!, { promptTokens: estimated, completionTokens: 0 });

    // As in chat.ts: a call the budget or its deadline refused has a row of its own, then the refusal.
    const refused = async (err: Error): Promise<never> => {
      const zero = { promptTokens: 0, cachedTokens: 0, completionTokens: 0, costUsd: 0 };
      await record({ ...zero, latencyMs: 0, outcome: 'budget', requestId: null, attempt: 0, error: err.message }, orgId, runId, log);
      throw err;
    };
    let reservation: Reservation | null = null;
    if (opts.budget) {
      try {
        reservation = opts.budget.reserve({ tokens: estimated, costUsd: estimatedCost });
      } catch (err) {
        if (err instanceof BudgetExceededError) await refused(err);
        throw err;
      }
    }

    let attempts = 0;
    // As in chat.ts: the caller's check before sending failed (beforeSend), so nothing was sent: passed on as it is.
    let unsent: unknown = undefined;
    const spent = { tokens: 0, costUsd: 0 };
    const charge = (row: { promptTokens: number; costUsd: number }) => {
      spent.tokens += row.promptTokens;
      spent.costUsd += row.costUsd;
    };
    try {
      const vectors = await withRetry(
        (attempt) => {
          // As in chat.ts: a retry is billed like a first request and must fit beside what earlier attempts were charged.
          if (attempt > 1 && reservation) reservation = opts.budget!.cover(reservation, { tokens: spent.tokens + estimated, costUsd: spent.costUsd + estimatedCost });
          return limit(async () => {
            if (opts.beforeSend) {
              await opts.beforeSend().catch((err: unknown) => {
                throw (unsent = err);
              });
            }
            attempts = attempt;
            const started = now();
            const timeout = requestTimeout(settings.timeoutMs, deadline, started);
            // As in chat.ts: a signal aborted already is refused by the SDK before anything is sent.
            const abortedBeforeSend = opts.signal?.aborted === true;
            const sending = callSignal(opts.signal);
            try {
              const { data, request_id } = await deps.client.embeddings
                .create({ model: model!.id, input: batch, encoding_format: 'float', ...(model!.sendDimensions ? { dimensions: model!.dimension } : {}) }, { signal: sending.signal, timeout, headers: { [AGENT_HEADER]: EMBEDDER_AGENT } })
                .withResponse();
              // Servers that omit usage (or report a count that is not one) are charged at our conservative estimate.
              // A zero is no count either: every input is at least one character (some servers send zeros, not none).
              // A count past what the batch could hold (each input within the model's context window) is none.
              const count = reportedTokens(data?.usage?.prompt_tokens);
              const reported = count === 0 || (count !== null && count > batch.length * model!.contextWindow) ? null : count;
              const promptTokens = reported ?? estimated;
              const row = { promptTokens, cachedTokens: 0, completionTokens: 0, costUsd: costUsd(model!, { promptTokens, completionTokens: 0 }), latencyMs: now() - started, requestId: request_id, attempt, ...(reported === null ? { tokensEstimated: true } : {}) };
              charge(row);
              // Read without trusting the shape: a throw here, before the row below, would record a paid answer as free.
              const items = Array.isArray(data?.data) ? (data.data as unknown[]) : [];
              const entries = items.map((d) => (d !== null && typeof d === 'object' ? (d as { index?: unknown; embedding?: unknown }) : {}));
              const vectors = entries.sort((a, b) => Number(a.index) - Number(b.index)).map((d) => d.embedding as number[]);
              // Some proxies answer an error with HTTP 200: its words say more than "0 vectors for N inputs".
              const bodyError = errorInBody(data);
              const bad = bodyError ? `the server answered HTTP 200 with an error: ${logSafeText(bodyError.message, 300, batch.join('\n'))}` : vectors.length !== batch.length ? `${vectors.length} vectors for ${batch.length} inputs` : vectors.some((v) => !Array.isArray(v) || v.length !== model!.dimension) ? `a vector is not of dimension ${model!.dimension}` : vectors.some((v) => !v.every(storable)) ? 'a vector holds a value that is not a finite number pgvector can store (null, NaN, Infinity, text or past 3.4e38)' : null;
              await record({ ...row, outcome: bad ? 'error' : 'ok', ...(bad ? { error: bad } : {}) }, orgId, runId, log);
              if (bad) throw new EmbeddingShapeError(bad);
              return vectors;
            } catch (err) {
              if (err instanceof EmbeddingShapeError) throw err;
              const failure = classifyFailure(err);
              const outcome = failureOutcome(failure);
              const { message, requestId } = attemptFailure(err, null, batch.join('\n'));
              // Sent and never answered (timeout, abort, connection lost after sending): the provider may bill it,
              // so it is charged its estimated input, and the row says the figure is ours.
              const billed = !abortedBeforeSend && mayBeBilled(err, failure);
              const usage = billed
                ? { promptTokens: estimated, cachedTokens: 0, completionTokens: 0, costUsd: estimatedCost, tokensEstimated: true }
                : { promptTokens: 0, cachedTokens: 0, completionTokens: 0, costUsd: 0 };
              charge(usage);
              await record({ ...usage, latencyMs: now() - started, outcome, requestId, attempt, error: message }, orgId, runId, log);
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
          signal: opts.signal,
          // As in chat.ts: the deadline is on this clock, so the retries' checks against it must read the same one.
          now,
          onAttempt: (r) => {
            if (r.error === null || r.error === unsent) return;
            logFailedAttempt(log, r.failure, { agent: EMBEDDER_AGENT, model: model!.id, attempt: r.attempt, failure: r.failure, willRetry: r.willRetry }, 'embedding');
          },
        },
      );
      if (reservation) opts.budget?.settle(reservation, spent);
      return vectors;
    } catch (err) {
      if (reservation) {
        if (attempts === 0) opts.budget?.release(reservation);
        else opts.budget?.settle(reservation, spent);
      }
      if (err === unsent) throw err;
      // A refused retry, or a request its deadline left too little time: a budget stop.
      if (err instanceof DeadlineExceededError || err instanceof BudgetExceededError) await refused(err);
      if (opts.signal?.aborted) throw err;
      const failure = classifyFailure(err);
      const hint = failureHint(failure.status, { model: model!.id }, '', failure.kind);
      throw new ModelCallError({ agent: EMBEDDER_AGENT, model: model!.id, status: failure.status, retryable: failure.retryable, attempts, cause: reportedCause(err), hint, sent: batch.join('\n'), kind: failure.kind, retryAfterMs: failure.retryAfterMs });
    }
  }

  return {
    model: model.id,
    dimension: model.dimension,
    async embed(texts: string[], opts: LlmEmbedOptions = {}): Promise<number[][]> {
      // The API rejects empty strings; a space embeds as "nothing" without failing the whole batch.
      const inputs = texts.map((t) => (t.trim() === '' ? ' ' : prefixUnits(t, maxInputChars)));
      const out: number[][] = [];
      // Sequential batches: the order of vectors is the order of texts, and one caller cannot take every slot of the
      // limiter. A batch ends at batchSize inputs or before its estimated tokens would pass batchMaxTokens.
      for (let i = 0; i < inputs.length; ) {
        let end = i + 1;
        let tokens = estimateTokens(inputs[i]!);
        while (end < inputs.length && end - i < batchSize && tokens + estimateTokens(inputs[end]!) <= batchMaxTokens) tokens += estimateTokens(inputs[end++]!);
        out.push(...(await embedBatch(inputs.slice(i, end), opts)));
        i = end;
      }
      return out;
    },
  };
}
