// How people spell their own names in the sites, handles and addresses they own: "janedoe", "jane.doe", "jane_doe",
// "JaneDoe", "jdoe", "janed", "doej", "doe.jane", or one part ("jane"). Part of the scrubber (scrubber.ts): a bare
// "janedoe at acme.com" or "demos on jdoe.io" reads like an employer or a product until the person's name is known.
import { COMMON_WORD_NAMES, foldName, nameParts, PARTICLES, WORD_NAMES } from './scrub-names.js';
import { isSkillForm } from './skills.js';
import { isWellKnownName } from './well-known-sites.js';

/**
 * full: spellings of two parts or more (a whole name, or one part with the other's initial), which prose never
 * writes as one word; parts: single parts of three letters or more that are no word, skill or well-known site.
 */
export interface NameSpellings {
  full: Set<string>;
  parts: Set<string>;
}

/** Letters only, lower-case, folded as names are: "Jane.Doe" and "jane_doe85" are "janedoe". */
export const spellingLetters = (value: string): string => foldName(value.normalize('NFKC')).toLowerCase().replace(/[^a-z]/g, '');

/** A spelling any text may hold for another reason: a skill ("go", "swift"), a well-known site's name ("apple"). */
const taken = (form: string): boolean => isSkillForm(form) || isWellKnownName(form);

/** The spellings of the names, letters only and lower-case. */
export function nameSpellings(names: string[]): NameSpellings {
  const full = new Set<string>();
  const parts = new Set<string>();
  for (const name of names) {
    const ps = nameParts(foldName(name.normalize('NFKC')), true).map((p) => p.toLowerCase().replace(/[^a-z]/g, '')).filter((p) => p.length >= 2);
    for (const p of ps) if (p.length >= 3 && !PARTICLES.has(p) && !COMMON_WORD_NAMES.has(p) && !WORD_NAMES.has(p) && !taken(p)) parts.add(p);
    if (ps.length < 2) continue;
    const first = ps[0]!;
    const last = ps[ps.length - 1]!;
    const middles = ps.slice(1, -1).map((p) => p[0]!).join('');
    // Two whole parts: five letters at least ("Bo Li" as "boli" is a word of its own in too many languages).
    for (const f of [ps.join(''), first + last, last + first, first + middles + last]) if (f.length >= 5) full.add(f);
    // One whole part and the other's initial: the whole part has three letters at least ("Mark Go" is no "mgo").
    if (last.length >= 3) for (const f of [first[0]! + last, last + first[0]!]) full.add(f);
    if (first.length >= 3) for (const f of [first + last[0]!, last[0]! + first]) full.add(f);
  }
  for (const f of full) if (taken(f)) full.delete(f);
  return { full, parts };
}

/** Whether the value (a local part, a domain's labels, a handle) spells the names: in full, as one part, or not. */
export function spelledBy(value: string, spellings: NameSpellings): 'full' | 'part' | null {
  const letters = spellingLetters(value);
  if (letters.length < 3) return null;
  if (spellings.full.has(letters)) return 'full';
  return spellings.parts.has(letters) ? 'part' : null;
}
