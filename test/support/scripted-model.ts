// A well-behaved model for every agent, answering by the agent header; tests override one agent to misbehave.
import type { FakeHandler, FakeReply, RecordedRequest } from './fake-llm-server.js';
import { fakeReply } from './fake-llm-server.js';
import type { Subscores } from '../../src/matching/domain.js';

export interface ScriptOptions {
  /** Sub-scores for a scorer request; by default a middling, valid answer. */
  subscores?: (req: RecordedRequest) => Subscores;
  /** The reflector's answer; by default "continue". */
  reflect?: (req: RecordedRequest) => { stop: boolean; reasoning: string; hints: string[] };
  /** Per-agent overrides: return a reply to take over, undefined to fall through. */
  override?: (req: RecordedRequest) => FakeReply | undefined;
  usage?: { promptTokens: number; completionTokens: number };
}

export const MIDDLING: Subscores = { hardSkills: 20, domain: 12, seniority: 10, impact: 8, logistics: 6, trajectory: 6 };

export function userText(req: RecordedRequest): string {
  return (req.body.messages ?? [])
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

export function scriptedModel(opts: ScriptOptions = {}): FakeHandler {
  const usage = opts.usage ?? { promptTokens: 400, completionTokens: 60 };
  let expansions = 0;
  return (req) => {
    const taken = opts.override?.(req);
    if (taken) return taken;
    switch (req.agent) {
      case 'queryExpander':
        expansions++;
        return fakeReply.json(
          { queries: [`engineer query ${expansions}`, `backend services ${expansions}`], filters: { skillsAll: [], skillsAny: [], location: null, minYears: null } },
          usage,
        );
      case 'reranker': {
        const labels = [...userText(req).matchAll(/## Candidate (c\d+)/g)].map((m) => m[1]!);
        return fakeReply.json({ ranking: labels }, usage);
      }
      case 'scorer': {
        const subscores = opts.subscores?.(req) ?? MIDDLING;
        const evidence = { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] };
        return fakeReply.json({ subscores, rationale: 'Fits the role on skills and seniority.', evidence }, usage);
      }
      case 'reflector':
        return fakeReply.json(opts.reflect?.(req) ?? { stop: false, reasoning: 'More candidates may fit; continue.', hints: [] }, usage);
      default:
        return undefined;
    }
  };
}
