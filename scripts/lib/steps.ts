// Time per workflow step, read from a run's timeline: each step event's time minus the previous step boundary's.
import type { RunEvent } from './runtime.js';

export const STEP_OF_EVENT: Record<string, string> = {
  'queries.expanded': 'expand',
  'candidates.retrieved': 'retrieve',
  'candidates.reranked': 'rerank',
  'candidates.scored': 'score',
  'iteration.reflected': 'reflect',
};
export const STEP_NAMES = ['expand', 'retrieve', 'rerank', 'score', 'reflect'] as const;

/** Milliseconds per step name, summed over the run's rounds; "other" is the time from start to finish outside any step. */
export function stepTimes(events: RunEvent[]): Map<string, number> {
  const out = new Map<string, number>([...STEP_NAMES, 'other'].map((s) => [s, 0]));
  const started = events.find((e) => e.type === 'run.started');
  const finished = [...events].reverse().find((e) => /^run\.(stopped|failed)$/.test(e.type)) ?? events.at(-1);
  let boundary: number | null = null;
  let inSteps = 0;
  for (const e of events) {
    const at = Date.parse(e.at);
    if (e.type === 'iteration.started') boundary = at;
    const step = STEP_OF_EVENT[e.type];
    if (step && boundary !== null) {
      out.set(step, out.get(step)! + (at - boundary));
      inSteps += at - boundary;
      boundary = at;
    }
  }
  if (started && finished) out.set('other', Math.max(0, Date.parse(finished.at) - Date.parse(started.at) - inSteps));
  return out;
}
