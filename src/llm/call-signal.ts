// The signal one model request is sent with. The openai client adds an abort listener to the signal it is given and
// never removes it: given a run's own signal, every request of the run (retries and re-asks included) left one on it
// until the run ended, past a thousand on a long run (MaxListenersExceededWarning). Each request gets a signal of its
// own instead, aborted with the run's, whose link to the run's is removed once the request is done.

/** A signal that aborts when `outer` does; `done()` unlinks it. Without `outer`, none. */
export function callSignal(outer: AbortSignal | undefined): { signal: AbortSignal | undefined; done(): void } {
  if (!outer) return { signal: undefined, done: () => {} };
  const controller = new AbortController();
  if (outer.aborted) {
    controller.abort(outer.reason);
    return { signal: controller.signal, done: () => {} };
  }
  const forward = () => controller.abort(outer.reason);
  outer.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, done: () => outer.removeEventListener('abort', forward) };
}
