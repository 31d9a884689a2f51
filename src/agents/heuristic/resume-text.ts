// A scrubbed resume cut into passages (lines and sentences that are exact substrings), minus any passage
// that addresses the screener instead of describing the candidate.
import { findFenceTags } from '../../llm/fence.js';
import { prefixUnits } from '../../text/storable.js';
import { tokenize } from '../../text/tokenize.js';
import { FUNCTION_TERMS } from './role-terms.js';

export interface Passage {
  /** Exact substring of the candidate's text, trimmed. */
  text: string;
  tokens: string[];
}

// Text that talks to whoever (or whatever) screens the resume is an instruction, not evidence: a passage
// that matches one of these carries no weight in any rule. Each pattern needs an evaluator-directed form
// ("rank this candidate", "ignore previous instructions"), so "ranked top 5% of the class" still counts.
const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:instructions?|prompts?|rules?|guidelines?|criteria|above|previous|prior|earlier)\b/i,
  /\b(?:rank|score|rate|grade|mark|shortlist|select|pick|hire|recommend|approve|pass)\s+(?:this|the|me|my|him|her|them)\b[^.\n]{0,40}\b(?:candidates?|applicants?|resumes?|cv|profile|first|top|highest|maximum|max|perfect|100|10\/10|best)\b/i,
  /\b(?:give|assign|award)\s+(?:this|the|me|my|him|her|them)\b[^.\n]{0,30}\b(?:score|rating|marks?|points?|100)\b/i,
  /<\s*\/?\s*(?:resume|resume_markdown|system|user|assistant|instructions?|prompt|candidate|role|document|context)\b[^>]{0,40}>/i,
  /\b(?:system|developer|assistant)\s*(?:prompt|message|instructions?)\b/i,
  /^\s*(?:system|assistant|user)\s*:/i,
  /\b(?:you are|you're|act as|pretend to be)\s+(?:an?\s+|the\s+)?(?:ai|assistant|language model|llm|chatbot|gpt|screener|evaluator|reviewer|scoring)\b/i,
  /\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|model|gpt|assistant|screener|recruiter|evaluator|reviewer|bot|algorithm|ats|reranker|ranker|reflector|scorer|matcher|agent)\b/i,
  /\b(?:put|place|move|keep|list)\s+(?:this|the|me|my|him|her|them)\s+(?:candidate|applicant|resume|profile)?\s*(?:at|on|to|in)\s+(?:the\s+)?(?:top|first|head)\b/i,
  /\b(?:stop|end|halt)\s+(?:the\s+)?(?:search|screening|ranking|evaluation|iterations?)\b/i,
  /<\|[a-z_]{2,20}\|>/i,
  /\b(?:new|updated|real|actual|hidden)\s+instructions?\b/i,
];

export function isInstruction(passage: string): boolean {
  // Fence tags in any disguise (entities, full-width brackets, escapes, look-alike letters) are never evidence.
  return INSTRUCTION_PATTERNS.some((re) => re.test(passage)) || findFenceTags(passage).length > 0;
}

const SENTENCE_END_RE = /(?<=[.!?])(?<!\b(?:Sr|Jr|Mr|Mrs|Ms|Dr|Prof|St|Inc|Ltd|Co|No|Nos|vs|etc|approx|e\.g|i\.e)\.)\s+(?=[A-Z(["'])/;

/** Lines, then sentences within long lines; each an exact, trimmed substring of text. */
function splitPassages(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    // A sentence ends at . ! ? followed by space and a capital or an opening bracket: "Node.js" and "Sr. Engineer" stay whole.
    for (const sentence of line.split(SENTENCE_END_RE)) {
      const trimmed = sentence.trim();
      if (trimmed !== '') out.push(trimmed);
    }
  }
  return out;
}

export interface ResumeText {
  passages: Passage[];
  /** Every token of the kept passages. */
  tokens: ReadonlySet<string>;
  /** Adjacent token pairs within a passage, "a b". */
  bigrams: ReadonlySet<string>;
  /** The kept passages joined: what skill extraction and pattern rules read. */
  body: string;
}

export function readResume(text: string): ResumeText {
  const passages: Passage[] = [];
  for (const piece of splitPassages(text)) {
    if (isInstruction(piece)) continue;
    passages.push({ text: piece, tokens: tokenize(piece) });
  }
  const tokens = new Set<string>();
  const bigrams = new Set<string>();
  for (const p of passages) {
    for (const t of p.tokens) tokens.add(t);
    // Phrases of words that say something: "el equipo" is "equipo", as "the team" is "team" (role-profile.ts's too).
    const content = p.tokens.filter((t) => !FUNCTION_TERMS.has(t));
    for (let i = 1; i < content.length; i++) bigrams.add(`${content[i - 1]} ${content[i]}`);
  }
  return { passages, tokens, bigrams, body: passages.map((p) => p.text).join('\n') };
}

const MAX_QUOTE = 200;

/**
 * A quote of at most 200 characters from the passage, an exact substring of it: the whole passage when short,
 * else the clause that holds one of the wanted tokens, else its start.
 */
export function quoteFrom(passage: Passage, wanted: ReadonlySet<string> | null): string {
  if (passage.text.length <= MAX_QUOTE) return passage.text;
  if (wanted) {
    for (const clause of passage.text.split(/(?<=[,;:])\s+/)) {
      const trimmed = clause.trim();
      if (trimmed.length > 0 && trimmed.length <= MAX_QUOTE && tokenize(trimmed).some((t) => wanted.has(t))) return trimmed;
    }
  }
  // Not through an emoji: half of one is no text, and a quote holding it could not be stored (src/text/storable.ts).
  return prefixUnits(passage.text, MAX_QUOTE).trim();
}

/** The first passages (in resume order) holding any wanted token, up to n. */
export function passagesWith(resume: ResumeText, wanted: ReadonlySet<string>, n: number): Passage[] {
  const out: Passage[] = [];
  for (const p of resume.passages) {
    if (out.length >= n) break;
    if (p.tokens.some((t) => wanted.has(t))) out.push(p);
  }
  return out;
}
