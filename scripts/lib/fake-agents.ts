// Scripted model answers for the LLM agents on the fake server, at a fixed latency, with each request's busy interval recorded.
import { createHash } from 'node:crypto';
import { fakeReply, type FakeHandler, type FakeReply, type RecordedRequest } from '../../test/support/fake-llm-server.js';
import { prng } from './synthetic.js';

export interface Interval {
  agent: string;
  /** performance.now() on the fake server: request body read, and answer handed to the socket. */
  start: number;
  end: number;
}

const userText = (req: RecordedRequest): string =>
  (req.body.messages ?? []).filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

const fenced = (text: string, tag: string) => new RegExp(`<${tag}>\\n([\\s\\S]*?)\\n</${tag}>`).exec(text)?.[1]?.trim() ?? '';

function expansion(text: string): unknown {
  const title = fenced(text, 'role_title') || 'software engineer';
  const round = Number(/# Round (\d+)/.exec(text)?.[1] ?? 1);
  const words = fenced(text, 'role_description').split(/[^A-Za-z+#.]+/).filter((w) => w.length > 3);
  // Two fresh queries per round: the title with a different slice of the description's words each time.
  const slice = words.slice((round - 1) * 4, round * 4).join(' ');
  return { queries: [`${title} ${slice}`.trim(), `${title} round ${round}`], filters: { skillsAll: [], skillsAny: [], location: null, minYears: null } };
}

function ranking(text: string): unknown {
  // Every label it was given, in the order given: a valid, if unambitious, listwise ranking.
  return { ranking: [...text.matchAll(/^## Candidate (c\d+)$/gm)].map((m) => m[1]!) };
}

function score(text: string): unknown {
  const h = createHash('sha256').update(text).digest();
  const bounded = (i: number, max: number) => h[i]! % (max + 1);
  return {
    subscores: { hardSkills: bounded(0, 30), domain: bounded(1, 20), seniority: bounded(2, 15), impact: bounded(3, 15), logistics: bounded(4, 10), trajectory: bounded(5, 10) },
    rationale: 'Scripted assessment for the benchmark.',
    evidence: { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] },
  };
}

const ANSWERS: Record<string, (text: string) => unknown> = {
  queryExpander: expansion,
  reranker: ranking,
  scorer: score,
  reflector: () => ({ stop: false, reasoning: 'More rounds may find stronger candidates.', hints: [] }),
};

/**
 * A handler that answers each agent sensibly after latencyMs plus up to jitterMs (seeded), and records when
 * each request was busy. Set the server's own latency to 0: the wait happens here so its end is known.
 */
export function scriptedAgents(opts: { latencyMs: number; jitterMs: number; seed?: number }) {
  const rand = prng(opts.seed ?? 42);
  const intervals: Interval[] = [];
  const unknown: string[] = [];
  const handler: FakeHandler = async (req): Promise<FakeReply | undefined> => {
    if (req.path !== '/v1/chat/completions') return undefined;
    const answer = ANSWERS[req.agent ?? ''];
    if (!answer) {
      unknown.push(req.agent ?? '(no agent header)');
      return fakeReply.error(400, `no script for agent ${req.agent}`);
    }
    const reply = fakeReply.json(answer(userText(req)));
    await new Promise((r) => setTimeout(r, opts.latencyMs + rand() * opts.jitterMs));
    intervals.push({ agent: req.agent!, start: req.receivedAt, end: performance.now() });
    return reply;
  };
  return { handler, intervals, unknown };
}

/** Total time covered by at least one interval. */
export function unionMs(intervals: Array<{ start: number; end: number }>): number {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const { start, end } of sorted) {
    if (start > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = start;
      curEnd = end;
    } else {
      curEnd = Math.max(curEnd, end);
    }
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** Mean requests in flight in consecutive windows of bucketMs from the first request on. */
export function inFlightProfile(intervals: Array<{ start: number; end: number }>, bucketMs: number): number[] {
  if (!intervals.length) return [];
  const first = Math.min(...intervals.map((i) => i.start));
  const last = Math.max(...intervals.map((i) => i.end));
  const buckets = new Array<number>(Math.ceil((last - first) / bucketMs)).fill(0);
  for (const { start, end } of intervals) {
    for (let b = Math.floor((start - first) / bucketMs); b < buckets.length && first + b * bucketMs < end; b++) {
      const from = first + b * bucketMs;
      buckets[b]! += Math.min(end, from + bucketMs) - Math.max(start, from);
    }
  }
  return buckets.map((busy) => busy / bucketMs);
}

export interface StepGap {
  from: string;
  to: string;
  ms: number;
}

/** Steps are maximal runs of requests of one agent (in start order); a gap is the next step's first start minus the last end. */
export function stepGaps(intervals: Interval[]): StepGap[] {
  const sorted = [...intervals].sort((a, b) => a.start - b.start);
  const steps: Array<{ agent: string; start: number; end: number }> = [];
  for (const i of sorted) {
    const last = steps.at(-1);
    if (last && last.agent === i.agent) last.end = Math.max(last.end, i.end);
    else steps.push({ agent: i.agent, start: i.start, end: i.end });
  }
  return steps.slice(1).map((s, k) => ({ from: steps[k]!.agent, to: s.agent, ms: s.start - steps[k]!.end }));
}
