// The matching domain's words and shapes, shared by agents, workflow, store and routes.
//
// Glossary
// - role: what a recruiter is hiring for (title, description, skills, seniority, location).
// - candidate: a person in an organisation's pool; only their scrubbed text reaches agents.
// - matching run: one attempt to turn a role into a shortlist; it is the unit of work a worker claims.
// - iteration (round): one pass of the workflow's steps over the run context.
// - step: a function (context) => context; expand, retrieve, rerank, score, reflect.
// - agent: a typed interface (input => output) with an LLM and a heuristic implementation.
// - tool call: an agent asking our code to run an allow-listed function with validated arguments.
// - strong candidate: a shortlist entry whose totalScore >= the run's scoreThreshold.
// - shortlist: the scored candidates of a run, ranked by totalScore.

export const SUBSCORE_BOUNDS = {
  hardSkills: 30,
  domain: 20,
  seniority: 15,
  impact: 15,
  logistics: 10,
  trajectory: 10,
} as const;

export type SubscoreName = keyof typeof SUBSCORE_BOUNDS;
export const SUBSCORE_NAMES = Object.keys(SUBSCORE_BOUNDS) as SubscoreName[];
export type Subscores = Record<SubscoreName, number>;

export const SENIORITIES = ['junior', 'mid', 'senior', 'staff', 'principal'] as const;
export type Seniority = (typeof SENIORITIES)[number];

export const ENGINES = ['llm', 'heuristic'] as const;
export type Engine = (typeof ENGINES)[number];

/** A role as the agents see it. Free text fields are user text: fence them in prompts. */
export interface RoleSpec {
  title: string;
  description: string;
  mustHaveSkills: string[];
  niceToHaveSkills: string[];
  location: string | null;
  remote: boolean | null;
  seniority: Seniority | null;
  minYearsExperience: number | null;
}

/** A candidate as agents see it: scrubbed text only, never raw PII. */
export interface CandidateView {
  id: string;
  headline: string | null;
  location: string | null;
  yearsExperience: number | null;
  skills: string[];
  /** The scrubbed resume text: the only resume text an agent or log ever sees. */
  text: string;
}

/** What retrieval found for one candidate, kept as evidence for the reranker and the trace. */
export interface RetrievedCandidate {
  id: string;
  fusedScore: number;
  vectorRank: number | null;
  textRank: number | null;
  distance: number | null;
  candidate: CandidateView;
}

export interface SearchFilters {
  skillsAll?: string[];
  skillsAny?: string[];
  location?: string;
  minYears?: number;
}

export interface Evidence {
  subscore: SubscoreName;
  quote: string;
  /** false when the quote was not found in the candidate's scrubbed text. */
  verified: boolean;
}

/** The scorer's validated verdict; totalScore is always computed by our code. */
export interface Score {
  subscores: Subscores;
  totalScore: number;
  rationale: string;
  evidence: Evidence[];
}

export function totalOf(subscores: Subscores): number {
  // The model never adds: every part is read by name (a missing one throws) and the sum is clamped.
  let sum = 0;
  for (const name of SUBSCORE_NAMES) {
    const value = subscores[name];
    if (!Number.isInteger(value) || value < 0 || value > SUBSCORE_BOUNDS[name]) {
      throw new RangeError(`sub-score ${name} out of bounds: ${String(value)}`);
    }
    sum += value;
  }
  return Math.min(100, Math.max(0, sum));
}
