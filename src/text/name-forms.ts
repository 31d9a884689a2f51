// The forms a known or shown name takes that its own parts do not spell: a middle name or initial that one of the
// name field and the text has and the other lacks ("Jane Marie Doe" for Jane Doe, "J. Doe" for Jane Marie Doe), and
// nicknames ("Jon" for Jonathan, "Elizabeth" for Liz). Part of the scrubber (scrubber.ts), which finds these once the
// text's own header and "Name:" line are read, and replaces them before the names' parts.
import { otherGivenNames, isWordNickname } from './nicknames.js';
import { escapeRe, foldName, isWordName, nameParts, NOT_NAME_WORDS, PARTICLES } from './scrub-names.js';
import { isSkillForm } from './skills.js';

// Between a first and a last name: a capitalised word, an initial, or a nickname in quotes or brackets
// ('Robert "Robbie" Chen'). At most two of them, each bounded: the pattern is linear.
const MIDDLE = `(?:["“'‘(]\\p{Lu}[\\p{L}'’-]{0,30}["”'’)]|\\p{Lu}[\\p{L}'’-]{1,30}|\\p{Lu}\\.?)`;

interface Forms {
  /** First name (or a nickname of it, or its initial and a full stop), up to two middles, the last name. */
  re: RegExp | null;
  /** What every form holds, lower-case: a cheap test before the pattern runs. */
  lasts: string[];
  /** Nicknames and formal names that are no word: removed alone, as a name the text shows is (when capitalised). */
  alone: string[];
}

const caseForms = (p: string): string[] => [...new Set([p, p[0]!.toUpperCase() + p.slice(1).toLowerCase(), p.toUpperCase()])];

/** A name's given parts and its surname with the particles before it; "Doe, Jane" is read surname first. */
function splitName(name: string): { given: string[]; last: string[] } {
  const comma = name.indexOf(',');
  const ordered = comma === -1 ? name : `${name.slice(comma + 1)} ${name.slice(0, comma)}`;
  const parts = nameParts(foldName(ordered.normalize('NFKC')), true);
  let lastAt = parts.length - 1;
  while (lastAt > 1 && PARTICLES.has(parts[lastAt - 1]!.toLowerCase())) lastAt--;
  if (parts.length < 2) return { given: parts, last: [] };
  return { given: parts.slice(0, lastAt).filter((p) => !PARTICLES.has(p.toLowerCase())), last: parts.slice(lastAt) };
}

const cache = new Map<string, Forms>();

function formsOf(names: string[]): Forms {
  const key = names.join('\u0000');
  const cached = cache.get(key);
  if (cached) return cached;
  const alternatives: string[] = [];
  const lasts = new Set<string>();
  const alone = new Set<string>();
  for (const name of names) {
    const { given, last } = splitName(name);
    const others = given.flatMap((g) => otherGivenNames(g));
    for (const o of others) if (!isWordNickname(o) && !isWordName(o) && !isSkillForm(o)) alone.add(o[0]!.toUpperCase() + o.slice(1));
    if (given.length === 0 || last.length === 0) continue;
    const first = given[0]!;
    const firsts = [first, ...otherGivenNames(first)].flatMap(caseForms).map(escapeRe);
    const surname = last.map((p) => `(?:${caseForms(p).map(escapeRe).join('|')})`).join('[ \\t]+');
    lasts.add(last[last.length - 1]!.toLowerCase());
    alternatives.push(`(?:${firsts.join('|')}|${escapeRe(first[0]!.toUpperCase())}\\.)(?:[ \\t]+${MIDDLE}){0,2}[ \\t]+${surname}`);
  }
  const re = alternatives.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}_\\[])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
  const forms = { re, lasts: [...lasts], alone: [...alone] };
  if (cache.size >= 512) cache.clear();
  cache.set(key, forms);
  return forms;
}

function* matches(text: string, forms: Forms): Generator<RegExpExecArray> {
  if (forms.re === null) return;
  const folded = foldName(text);
  const lower = folded.toLowerCase();
  if (!forms.lasts.some((l) => lower.includes(l))) return;
  forms.re.lastIndex = 0;
  yield* folded.matchAll(forms.re);
}

// A person has a middle name or two; a text with thousands of distinct ones between a first and a last name is made to
// cost: each is one more alternative in the pattern every name is then matched with (100 KB of them took 7 s of CPU).
// Past this many, a middle name is still removed inside its whole name (scrubNameForms), not alone.
const MAX_MIDDLES = 8;

/**
 * The names the given ones imply in this text, to be removed wherever they stand: the middle names written between a
 * first and last name ("Marie" in "Jane Marie Doe" for Jane Doe), when capitalised, and the nicknames of the given names
 * that are no word ("Jon", "Johnny" for Jonathan; "Elizabeth" for Liz), when capitalised and not all capitals ("AWS SAM"
 * is no Samuel). A middle that is a skill or a heading
 * word ("Jane Senior Doe") is removed with the whole name but not alone; a nickname that is a word ("Bill", "Will")
 * only beside the surname (scrubNameForms).
 */
export function impliedNames(text: string, names: string[]): { middles: string[]; nicknames: string[] } {
  const forms = formsOf(names);
  const implied = new Set<string>();
  for (const m of matches(text, forms)) {
    const words = m[0].split(/[ \t]+/).slice(1, -1).map((w) => w.replace(/^["“'‘(]|["”'’).]$/gu, ''));
    for (const w of words) {
      const lower = w.toLowerCase();
      if (w.length >= 2 && !NOT_NAME_WORDS.has(lower) && !isSkillForm(lower) && !PARTICLES.has(lower)) implied.add(w);
    }
    if (implied.size >= MAX_MIDDLES) break;
  }
  return { middles: [...implied], nicknames: forms.alone };
}

/** Replaces each whole form of the names ("Jane M. Doe", "J. Doe", "Bill Chen" for William Chen) with one [NAME]. */
export function scrubNameForms(text: string, names: string[]): string {
  const forms = formsOf(names);
  let out = '';
  let copied = 0;
  for (const m of matches(text, forms)) {
    out += `${text.slice(copied, m.index)}[NAME]`;
    copied = m.index + m[0].length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
