// An answer's token usage as the ledger and budgets count it: the provider's counts where they are counts, our estimate otherwise.
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { reasoningText } from './answer-shape.js';
import { estimateTokens, reportedTokens } from './budget.js';
import type { CallUsage } from './chat.js';
import { costUsd, type ModelSpec } from './model-registry.js';

/** What the model emitted, as text to estimate from: content, refusal, reasoning and every tool call's name and arguments. */
export function emittedText(message: unknown): string {
  // Read defensively: a non-conforming server may send arguments as an object, null, or no function at all.
  const text = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : (JSON.stringify(v) ?? ''));
  const m = (message ?? {}) as { content?: unknown; refusal?: unknown; tool_calls?: unknown };
  const calls = Array.isArray(m.tool_calls)
    ? m.tool_calls.map((c) => {
        const f = (c as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
        return text(f?.name) + text(f?.arguments);
      })
    : [];
  return text(m.content) + text(m.refusal) + reasoningText(message) + calls.join('');
}

/**
 * An answer's usage: the provider's counts where they are valid (reportedTokens: non-negative integers a ledger row
 * holds, none past the model's context window), our estimate where
 * they are missing or not (the prompt at the reservation's estimate, the answer by what it emitted). A zero is no
 * count where the text it counts is not empty (some Ollama and vLLM setups send zeros rather than no usage): the
 * prompt never is, and an answer that emitted text did not cost nothing. `estimated` says the ledger row carries an
 * estimate of ours.
 */
export function answerUsage(
  reported: ChatCompletion['usage'] | undefined,
  promptText: string,
  message: unknown,
  contextWindow = Infinity,
): { usage: Omit<CallUsage, 'costUsd'>; estimated: boolean } {
  const emitted = emittedText(message);
  // A count past the model's context window cannot be one (a proxy's 2,000,000,000 prompt tokens billed a run $3,000
  // and spent its organisation's daily budget on one answer): no count either.
  const counted = (value: unknown, text: string) => {
    const n = reportedTokens(value);
    return (n === 0 && text !== '') || (n !== null && n > contextWindow) ? null : n;
  };
  const prompt = counted(reported?.prompt_tokens, promptText);
  const completion = counted(reported?.completion_tokens, emitted);
  const promptTokens = prompt ?? estimateTokens(promptText);
  const completionTokens = completion ?? estimateTokens(emitted);
  // Cached tokens are part of the prompt: never more than it, and none when the prompt is our estimate.
  const cachedTokens = prompt === null ? 0 : Math.min(reportedTokens(reported?.prompt_tokens_details?.cached_tokens) ?? 0, promptTokens);
  return { usage: { promptTokens, cachedTokens, completionTokens }, estimated: prompt === null || completion === null };
}

/** What a sent, unanswered attempt is charged: its estimated prompt (no completion is known), at the model's price. */
export function failedAttemptCharge(model: ModelSpec, promptText: string): CallUsage {
  const promptTokens = estimateTokens(promptText);
  return { promptTokens, cachedTokens: 0, completionTokens: 0, costUsd: costUsd(model, { promptTokens, completionTokens: 0 }) };
}
