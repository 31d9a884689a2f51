// A run's allowance of model work (tokens, cost, calls, time), reserved before each call and settled after it.
import { BudgetExceededError } from './errors.js';
import { costUsd, type ChatModelSpec } from './model-registry.js';

/*
 * Overshoot bound. reserve() admits a call only if spent + reserved + worstCase fits every limit, and the
 * worst case stays reserved while the call is in flight, so concurrent calls cannot jointly pass a limit.
 * An attempt that was sent and never answered (our timeout, an abort, a connection lost after sending, a 504) is
 * charged its estimated prompt, as the provider may bill it; before a retry of it, cover() grows the reservation to
 * what the call was charged plus another worst case, and the retry is refused if that does not fit. So the only way
 * past a limit is an attempt whose actual usage exceeded its worst case:
 *   overshoot(tokens) = sum over attempts of max(0, actualTokens - worstCaseTokens)
 * and likewise for cost at the model's prices. That is zero when, for every attempt, the provider's prompt
 * tokens are <= ceil(requestChars / 3) (true for English/JSON; CJK text, emoji and long digit runs can
 * exceed it) and its completion tokens are <= max_tokens (OpenAI enforces it; some local servers do not), except
 * that an unanswered attempt's completion is unknown and not counted: what the provider generated for it.
 * Calls are bounded exactly: maxCalls is never exceeded.
 */

export interface Spend {
  tokens: number;
  costUsd: number;
  calls: number;
}

export interface BudgetLimits {
  maxTokens?: number;
  maxCostUsd?: number;
  maxCalls?: number;
  /** Epoch ms after which no call is admitted. */
  deadline?: number;
  /** Already spent, e.g. by earlier iterations of a resumed run. */
  spent?: Spend;
  now?: () => number;
}

export interface Reservation {
  readonly id: number;
  readonly tokens: number;
  readonly costUsd: number;
}

/** The conservative prompt size we reserve for: one token per 3 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

/**
 * The most tokens one attempt may be counted: what a ledger row holds (its token columns are 32-bit integers), far
 * beyond any model's context. A count above it could not be written, and the attempt would be missing from the
 * ledger, the run's usage and a resumed run's budget.
 */
export const MAX_REPORTED_TOKENS = 2 ** 31 - 1;

/**
 * A token count as a provider reported it, if it is one: a non-negative integer up to MAX_REPORTED_TOKENS. Anything
 * else (negative, fractional, NaN, huge, a string) is null, and the caller charges its own estimate instead: a bad
 * count must neither credit a budget, nor break the metrics' counters, nor keep the attempt out of the ledger.
 */
export function reportedTokens(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_REPORTED_TOKENS ? value : null;
}

/** A call's worst case: estimated prompt (all uncached) plus the full completion allowance, at the model's prices. */
export function worstCase(model: ChatModelSpec, promptText: string, maxTokens: number): { tokens: number; costUsd: number } {
  const promptTokens = estimateTokens(promptText);
  return { tokens: promptTokens + maxTokens, costUsd: costUsd(model, { promptTokens, completionTokens: maxTokens }) };
}

// Costs are sums of rounded floats; a limit is treated as met within a billionth of a dollar.
const COST_EPSILON = 1e-9;

export function createBudget(limits: BudgetLimits) {
  const maxTokens = limits.maxTokens ?? Infinity;
  const maxCostUsd = limits.maxCostUsd ?? Infinity;
  const maxCalls = limits.maxCalls ?? Infinity;
  const deadline = limits.deadline ?? Infinity;
  const now = limits.now ?? Date.now;
  const spent: Spend = { tokens: 0, costUsd: 0, calls: 0, ...limits.spent };
  const reserved: Spend = { tokens: 0, costUsd: 0, calls: 0 };
  const open = new Map<number, Reservation>();
  let nextId = 1;

  /** The reservation as it is held now (cover() may have grown it since the caller's copy was made). */
  function held(reservation: Reservation): Reservation {
    const current = open.get(reservation.id);
    if (!current) throw new Error(`reservation ${reservation.id} is not open (settled or released twice?)`);
    return current;
  }

  function take(reservation: Reservation): void {
    const current = held(reservation);
    open.delete(current.id);
    reserved.tokens -= current.tokens;
    reserved.costUsd -= current.costUsd;
    reserved.calls -= 1;
  }

  function remaining() {
    return {
      tokens: maxTokens - spent.tokens - reserved.tokens,
      costUsd: maxCostUsd - spent.costUsd - reserved.costUsd,
      calls: maxCalls - spent.calls - reserved.calls,
      ms: deadline - now(),
    };
  }

  return {
    deadline: limits.deadline,
    /** Holds a call's worst case, or throws BudgetExceededError: the call must then not be sent. */
    reserve(worst: { tokens: number; costUsd: number }): Reservation {
      const left = remaining();
      if (left.ms <= 0) throw new BudgetExceededError('deadline', 0, left.ms);
      if (left.calls < 1) throw new BudgetExceededError('calls', 1, left.calls);
      if (worst.tokens > left.tokens) throw new BudgetExceededError('tokens', worst.tokens, left.tokens);
      if (worst.costUsd > left.costUsd + COST_EPSILON) throw new BudgetExceededError('cost', worst.costUsd, left.costUsd);
      const reservation = Object.freeze({ id: nextId++, tokens: worst.tokens, costUsd: worst.costUsd });
      open.set(reservation.id, reservation);
      reserved.tokens += reservation.tokens;
      reserved.costUsd += reservation.costUsd;
      reserved.calls += 1;
      return reservation;
    },
    /**
     * Grows a call's reservation to `need` (what its attempts were charged so far plus the next attempt's worst case)
     * before a retry, or throws BudgetExceededError: the retry is billed like a first request and must not be sent.
     */
    cover(reservation: Reservation, need: { tokens: number; costUsd: number }): Reservation {
      const current = held(reservation);
      const tokens = Math.max(0, need.tokens - current.tokens);
      const cost = Math.max(0, need.costUsd - current.costUsd);
      if (tokens === 0 && cost === 0) return current;
      const left = remaining();
      if (tokens > left.tokens) throw new BudgetExceededError('tokens', tokens, left.tokens);
      if (cost > left.costUsd + COST_EPSILON) throw new BudgetExceededError('cost', cost, left.costUsd);
      const grown = Object.freeze({ id: current.id, tokens: current.tokens + tokens, costUsd: current.costUsd + cost });
      open.set(grown.id, grown);
      reserved.tokens += tokens;
      reserved.costUsd += cost;
      return grown;
    },
    /** The call was sent: charge what it actually used (it counts as one call even if every attempt failed). */
    settle(reservation: Reservation, actual: { tokens: number; costUsd: number }): void {
      take(reservation);
      spent.tokens += actual.tokens;
      spent.costUsd += actual.costUsd;
      spent.calls += 1;
    },
    /** The call was never sent: give the reservation back. */
    release(reservation: Reservation): void {
      take(reservation);
    },
    snapshot() {
      return {
        limits: { maxTokens, maxCostUsd, maxCalls, deadline },
        spent: { ...spent },
        reserved: { ...reserved },
        openReservations: open.size,
      };
    },
    remaining,
  };
}

export type Budget = ReturnType<typeof createBudget>;
