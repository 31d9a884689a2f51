// A scorer whose answer is a function of the candidate alone: each resume carries a reference ("Ref-<n>") that the
// scorer's request reveals, and the sub-scores derive from it. A resumed run and an uninterrupted one then agree.
import { createHash } from 'node:crypto';
import type { Subscores } from '../../src/matching/domain.js';
import { fakeReply, type FakeHandler, type RecordedRequest } from './fake-llm-server.js';
import { scriptedModel, userText } from './scripted-model.js';

export function refOf(req: RecordedRequest): string {
  return /Ref-(\d+)/.exec(userText(req))?.[1] ?? 'none';
}

export function subscoresFor(ref: string): Subscores {
  const h = createHash('sha256').update(ref).digest();
  return { hardSkills: h[0]! % 31, domain: h[1]! % 21, seniority: h[2]! % 16, impact: h[3]! % 16, logistics: h[4]! % 11, trajectory: h[5]! % 11 };
}

/** The scripted model with that scorer, each scorer answer after `delayMs` (so that a kill lands mid-scoring). */
export function refScoredModel(delayMs: number): FakeHandler {
  return scriptedModel({
    override: (req) => {
      if (req.agent !== 'scorer') return undefined;
      const evidence = { hardSkills: [], domain: [], seniority: [], impact: [], logistics: [], trajectory: [] };
      return { ...fakeReply.json({ subscores: subscoresFor(refOf(req)), rationale: `Ref ${refOf(req)}`, evidence }), delayMs };
    },
  });
}
