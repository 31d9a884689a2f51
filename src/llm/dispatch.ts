// Fan-outs of model requests (the scorers, the reranker's batches) build one request per turn of the event loop.
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * A queue of turns: each call resolves one turn of the event loop after the previous call's. Building a request
 * (the prompt, the SDK's request, the socket write) takes about a millisecond; taken one per turn, each request
 * leaves as soon as it is built instead of all after the last, and other runs' answers and statements are handled
 * in between rather than after a whole fan-out in a row.
 */
export function turnByTurn(): () => Promise<void> {
  let last = Promise.resolve();
  return () => (last = last.then(() => nextTurn()));
}
