// What the heuristic agents read out of a role: its skills (alias-normalised) and its weighted key terms.
import { fairDescription, fairTitle } from './protected-criteria.js';
import type { RoleSpec } from '../../matching/domain.js';
import { extractSkills, normalizeSkills, skillKey } from '../../text/skills.js';
import { tokenize } from '../../text/tokenize.js';

// Job-posting boilerplate: words in almost every role and resume, so they say little about the domain.
// Run through tokenize() once so they match whatever stemming it applies.
const GENERIC_TEXT = `experience experienced work working works worked job role roles position team teams year years month months
  skill skills skilled ability able strong good great excellent knowledge understanding familiar familiarity proficient proficiency
  responsible responsibility responsibilities requirement requirements required require preferred prefer plus must should will
  would can may candidate candidates company companies organisation organization opportunity opportunities environment
  looking seeking join help new best high quality level including include includes various multiple well also etc within across
  develop developing development developer developers engineer engineers engineering software application applications
  build building design designing support supporting maintain maintaining ensure provide providing manage managing
  communication communicate written verbal oral interpersonal collaborate collaboration collaborative cross functional
  problem problems solving solve solution solutions detail details oriented motivated passionate passion self starter
  bachelor bachelors degree master masters education field related relevant equivalent computer science
  full time part type schedule shift day days week salary benefit benefits pay paid perk perks apply applying location
  minimum least hands hand deep understand like use using used etc ideal ideally fast paced dynamic growth grow growing
  key core main primary focus focused work-life professional professionals business businesses client clients customer customers
  project projects product products process processes technology technologies tool tools system systems service services
  best practice practices standard standards objective summary responsibilities qualification qualifications
  implement implemented implementing implementation improve improved improving improvement create created creating
  utilize utilized utilizing optimize optimized optimizing integrate integrated integrating issue issues increase increased
  reduce reduced technical conduct conducted highly feature features possess expertise contribute contributed result results
  successfully successful efficient efficiently timely knowledgeable obtain achieve achieved challenge challenges deliver
  delivered assist assisted participate participated resolve resolved ensured ensuring proven track record certified
  certification certifications university college graduate graduated present current inc corporation ltd corp
  january february march april may june july august september october november december
  hire hiring apply applicant applicants employer employee employees opportunity equal
  one two three four five six seven eight nine ten first second need needed needs get make makes take nice
  description job title published ago vacancy status`;

// The function words of the other languages the rules read (German, Spanish, French, Portuguese, Italian): in a role
// written in one of them, "de la", "der" or "für" would otherwise be its key phrases and domain vocabulary, and any
// resume in that language would share them. No word that is also a skill ("Go") or a common English term.
const FUNCTION_WORDS = `der die das den dem des ein eine einen einem einer und oder mit für von zu zum zur im auf aus bei nach über unter
  wir ihr sie sich ist sind wird werden haben hat als auch wie nicht dass
  el la los las un una unos unas y o de del al en con para por sin sobre entre que se su sus es son nuestro nuestra
  le les une et ou du au aux dans avec pour par sur sans qui est sont nous vous notre votre
  um uma uns umas e ou do da dos das no na nos nas em com para pelo pela por que os
  il lo gli i una e o di del della dei delle degli nel nella con per tra fra che sono siamo nostro nostra`;

/** Those function words as tokens: left out of phrases as tokenize() leaves out English stopwords. */
export const FUNCTION_TERMS: ReadonlySet<string> = new Set(tokenize(FUNCTION_WORDS));
export const GENERIC_TERMS: ReadonlySet<string> = new Set([...tokenize(GENERIC_TEXT), ...FUNCTION_TERMS]);

export interface RoleSkills {
  /** Canonical skills the role insists on: the stated must-haves, else those found in its title and text. */
  must: string[];
  nice: string[];
  /** true when `must` was read from the role's prose rather than stated. */
  mustInferred: boolean;
}

// A line (or the section under a heading) that marks what follows as optional.
const NICE_MARK_RE =
  /\b(?:good[ -]to[ -]have|nice[ -]to[ -]have|(?:is|are|will be|would be|be) (?:a )?(?:big |huge )?plus|bonus|preferred|desirable|desired|advantage|advantageous|optional)\b/i;
const MARKED_SENTENCE_MAX = 160;
const HEADING_RE = /^\s*(?:[*#]+.{0,40}|.{1,40}:\s*(?:\*+)?)\s*$/;

/** The role's prose split into what reads as required and what reads as optional. */
function splitByNeed(description: string): { required: string; optional: string } {
  const required: string[] = [];
  const optional: string[] = [];
  let inOptionalSection = false;
  for (const line of description.split(/\r?\n/)) {
    const marked = NICE_MARK_RE.test(line);
    if (HEADING_RE.test(line) && line.trim().length <= 40) {
      inOptionalSection = marked;
      if (!marked) required.push(line);
      continue;
    }
    if (inOptionalSection) {
      optional.push(line);
      continue;
    }
    // A marker only speaks for a short sentence: in a wall of text it says nothing about the rest.
    for (const sentence of line.split(/(?<=[.;!?])\s+/)) {
      (sentence.length <= MARKED_SENTENCE_MAX && NICE_MARK_RE.test(sentence) ? optional : required).push(sentence);
    }
  }
  return { required: required.join('\n'), optional: optional.join('\n') };
}

export function roleSkills(role: RoleSpec): RoleSkills {
  const nice = normalizeSkills(role.niceToHaveSkills);
  if (role.mustHaveSkills.length > 0) {
    const must = normalizeSkills(role.mustHaveSkills);
    const mustKeys = new Set(must.map(skillKey));
    return { must, nice: nice.filter((s) => !mustKeys.has(skillKey(s))), mustInferred: false };
  }
  const { required, optional } = splitByNeed(fairDescription(role));
  const niceKeys = new Set(nice.map(skillKey));
  const must = normalizeSkills(extractSkills(`${fairTitle(role)}\n${required}`)).filter((s) => !niceKeys.has(skillKey(s)));
  const mustKeys = new Set(must.map(skillKey));
  const inferredNice = role.niceToHaveSkills.length > 0 ? [] : extractSkills(optional).filter((s) => !mustKeys.has(skillKey(s)));
  return { must, nice: normalizeSkills([...nice, ...inferredNice]), mustInferred: true };
}

export interface WeightedTerm {
  term: string;
  weight: number;
}

/** The role description's content terms, heaviest first (repeated and specific terms weigh more), then in order of appearance. */
export function descriptionTerms(role: RoleSpec): WeightedTerm[] {
  const counts = new Map<string, number>();
  for (const token of tokenize(fairDescription(role))) counts.set(token, (counts.get(token) ?? 0) + 1);
  const terms: Array<WeightedTerm & { order: number }> = [];
  let order = 0;
  for (const [term, count] of counts) {
    order++;
    if (term.length < 2 || /^\d+$/.test(term)) continue;
    const base = GENERIC_TERMS.has(term) ? 0.2 : 1;
    terms.push({ term, weight: base * (1 + Math.log2(count)), order });
  }
  terms.sort((a, b) => b.weight - a.weight || a.order - b.order);
  return terms.map(({ term, weight }) => ({ term, weight }));
}

/** Soft skills find everyone: worth scoring, never worth searching for. */
const SOFT_SKILLS = new Set(['communication', 'leadership', 'problem solving', 'teamwork', 'customer service']);
export const isSearchableSkill = (skill: string): boolean => !SOFT_SKILLS.has(skillKey(skill));

/** The description's words as written, keyed by their token: searches and hints read better than stems. */
export function surfaceForms(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/[\p{L}][\p{L}\p{N}.#+-]*/gu)) {
    const word = m[0].replace(/[.-]+$/, '');
    const [token] = tokenize(word);
    if (token !== undefined && !out.has(token)) out.set(token, word.toLowerCase());
  }
  return out;
}

/** The role's specific description words as written, heaviest first, minus those already covered. */
export function keyTermsAsWritten(role: RoleSpec, covered: ReadonlySet<string> = new Set()): string[] {
  const forms = surfaceForms(fairDescription(role));
  const out: string[] = [];
  for (const { term } of descriptionTerms(role)) {
    if (GENERIC_TERMS.has(term) || covered.has(term) || !/^\p{L}{3,}$/u.test(term)) continue;
    const word = forms.get(term);
    if (word) out.push(word);
  }
  return out;
}

/** Role terms a search has not tried yet, in the order worth trying: nice-to-haves, must-haves, then key terms. */
export function unusedRoleTerms(role: RoleSpec, usedQueries: string[]): string[] {
  const used = new Set(usedQueries.flatMap((q) => tokenize(q)));
  const usedSkills = new Set(usedQueries.flatMap((q) => extractSkills(q)).map(skillKey));
  const fresh = (phrase: string) => {
    const tokens = tokenize(phrase);
    return tokens.length > 0 && !usedSkills.has(skillKey(phrase)) && tokens.some((t) => !used.has(t));
  };
  const { must, nice } = roleSkills(role);
  const skills = [...nice, ...must].filter(isSearchableSkill);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const phrase of [...skills, ...keyTermsAsWritten(role, new Set(tokenize(fairTitle(role))))]) {
    const key = phrase.toLowerCase();
    if (seen.has(key) || !fresh(phrase)) continue;
    seen.add(key);
    out.push(phrase);
  }
  return out;
}
