// The words a failed run's owner reads: our named errors as they are, a database error in words of ours.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { NotFoundError } from '../../src/errors.js';
import { BudgetExceededError, ModelCallError } from '../../src/llm/errors.js';
import { DATABASE_ERROR_DETAIL, runError } from '../../src/runs/run-error.js';

test('named errors keep their name and message; a database error gets a stable title and our detail', () => {
  const model = new ModelCallError({ agent: 'scorer', model: 'm', status: 500, retryable: true, attempts: 4, cause: new Error('boom') });
  assert.deepEqual(runError(model), { title: 'ModelCallError', detail: model.message });
  assert.deepEqual(runError(new BudgetExceededError('tokens', 10, 5)), { title: 'BudgetExceededError', detail: 'budget exceeded (tokens): needs 10, 5 left' });
  assert.deepEqual(runError(new NotFoundError('Role x')), { title: 'NotFoundError', detail: 'Role x does not exist.' });
  // As pg builds it from the server's message: named "error", the value it could not read quoted.
  const db = Object.assign(new pg.DatabaseError('invalid input syntax for type integer: "jane@example.com"', 0, 'error'), { code: '22P02' });
  assert.equal(db.name, 'error');
  assert.deepEqual(runError(db), { title: 'DatabaseError', detail: DATABASE_ERROR_DETAIL });
  assert.deepEqual(runError(new Error('expander exploded')), { title: 'Error', detail: 'expander exploded' });
  assert.deepEqual(runError('a string'), { title: 'Error', detail: 'a string' });
});
