// What a failed run tells its owner about the error that ended it: the run's `error`, and the run.retrying event.
import { sqlState } from '../db/database.js';
import { AppError } from '../errors.js';
import { LlmError } from '../llm/errors.js';

export interface RunError {
  title: string;
  detail: string;
}

/** A database error's detail: what the owner can do, nothing of the statement or the data. */
export const DATABASE_ERROR_DETAIL =
  "The run stopped because a database operation failed; the error is in the service's log under this run's id. " +
  'Start the run again; if it fails the same way, give the operator the run id.';

/**
 * Our named errors (AppError, LlmError) were written to be read by the run's owner: their name is the title and
 * their message the detail. A PostgreSQL error is not: pg names every one "error", and its message can quote the
 * data (a value that did not parse, a key that collided), so it gets a stable title and a detail of ours; the worker
 * logs the raw error with the run's id. Other errors keep their name and message, as before.
 */
export function runError(err: unknown): RunError {
  if (err instanceof AppError || err instanceof LlmError) return { title: err.name, detail: err.message };
  if (sqlState(err) !== undefined) return { title: 'DatabaseError', detail: DATABASE_ERROR_DETAIL };
  if (err instanceof Error) return { title: err.name || 'Error', detail: err.message };
  return { title: 'Error', detail: String(err) };
}
