// Budgets: reservation before a call, settlement after it, and refusal when the worst case does not fit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBudget, estimateTokens, worstCase } from '../../src/llm/budget.js';
import { BudgetExceededError } from '../../src/llm/errors.js';
import { loadModelRegistry } from '../../src/llm/model-registry.js';

const limitOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof BudgetExceededError) return err.limit;
    throw err;
  }
  return null;
};

test('the worst case is the prompt at chars/3 rounded up plus the completion allowance, at registry prices', () => {
  assert.equal(estimateTokens('x'.repeat(10)), 4);
  const fake = loadModelRegistry().chat('fake-chat')!;
  assert.deepEqual(worstCase(fake, 'x'.repeat(300), 50), { tokens: 150, costUsd: (100 * 1 + 50 * 2) / 1e6 });
});

test('reservations in flight count against the limit, so concurrent calls cannot jointly overshoot', () => {
  const budget = createBudget({ maxTokens: 1_000 });
  const a = budget.reserve({ tokens: 600, costUsd: 0 });
  assert.equal(limitOf(() => budget.reserve({ tokens: 500, costUsd: 0 })), 'tokens');
  const b = budget.reserve({ tokens: 400, costUsd: 0 });
  assert.equal(budget.remaining().tokens, 0);
  budget.settle(a, { tokens: 100, costUsd: 0 });
  budget.release(b);
  assert.deepEqual(budget.snapshot().spent, { tokens: 100, costUsd: 0, calls: 1 });
  assert.equal(budget.remaining().tokens, 900);
});

test('cost, calls and deadline limits refuse too', () => {
  const byCost = createBudget({ maxCostUsd: 0.01 });
  assert.equal(limitOf(() => byCost.reserve({ tokens: 1, costUsd: 0.02 })), 'cost');
  assert.equal(limitOf(() => byCost.reserve({ tokens: 1, costUsd: 0.01 })), null, 'exactly at the limit fits');
  // A retry's cover is held to the cost limit as a first reservation is.
  const retried = createBudget({ maxCostUsd: 1 });
  const first = retried.reserve({ tokens: 0, costUsd: 0.6 });
  assert.equal(limitOf(() => retried.cover(first, { tokens: 0, costUsd: 1.2 })), 'cost');

  const byCalls = createBudget({ maxCalls: 1 });
  byCalls.settle(byCalls.reserve({ tokens: 1, costUsd: 0 }), { tokens: 1, costUsd: 0 });
  assert.equal(limitOf(() => byCalls.reserve({ tokens: 1, costUsd: 0 })), 'calls');

  let now = 1_000;
  const byTime = createBudget({ deadline: 2_000, now: () => now });
  assert.equal(limitOf(() => byTime.reserve({ tokens: 1, costUsd: 0 })), null);
  now = 2_000;
  assert.equal(limitOf(() => byTime.reserve({ tokens: 1, costUsd: 0 })), 'deadline');
});

test('earlier spending (a resumed run) is honoured', () => {
  const budget = createBudget({ maxTokens: 1_000, spent: { tokens: 950, costUsd: 0, calls: 3 } });
  assert.equal(limitOf(() => budget.reserve({ tokens: 51, costUsd: 0 })), 'tokens');
  assert.equal(budget.snapshot().spent.calls, 3);
});

test('a reservation is settled or released exactly once', () => {
  const budget = createBudget({});
  const r = budget.reserve({ tokens: 10, costUsd: 0 });
  budget.release(r);
  assert.throws(() => budget.settle(r, { tokens: 10, costUsd: 0 }), /not open/);
});

test('a retry grows its call’s reservation to what was charged plus another worst case, or is refused', () => {
  const budget = createBudget({ maxTokens: 1_000 });
  const first = budget.reserve({ tokens: 400, costUsd: 0 });
  // The first attempt was charged 300 and never answered: a retry needs 300 + 400 held.
  const grown = budget.cover(first, { tokens: 700, costUsd: 0 });
  assert.equal(grown.tokens, 700);
  assert.equal(budget.remaining().tokens, 300);
  assert.equal(budget.cover(grown, { tokens: 500, costUsd: 0 }), grown, 'what is held already covers it');
  assert.equal(limitOf(() => budget.cover(grown, { tokens: 1_100, costUsd: 0 })), 'tokens');
  // Settled through the caller's first copy: the reservation as held now is what is given back.
  budget.settle(first, { tokens: 600, costUsd: 0 });
  assert.deepEqual(budget.snapshot().reserved, { tokens: 0, costUsd: 0, calls: 0 });
  assert.equal(budget.remaining().tokens, 400);
});
