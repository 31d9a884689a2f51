// Word tokens for lexical matching and hashing: lowercase, stopwords out, lightly stemmed, tech tokens whole.
// One-word skill aliases become their canonical word, so "k8s" and "Kubernetes" are the same token.
import { ownCopy } from './own-copy.js';
import { PII_PLACEHOLDERS } from './pii-placeholders.js';
import { isSkillForm, skillKey, withLatinC, WORD_RE } from './skills.js';

const STOPWORDS = new Set(
  ('a about above after again against all also am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could did didn do does doesn doing don down during each etc few for from further had hadn has hasn have haven having he ' +
    'her here hers herself him himself his how i if in into is isn it its itself just let me more most my myself no nor not now of off ' +
    'on once only or other our ours ourselves out over own per same she should shouldn so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up upon us very via was wasn we were weren what when where ' +
    'which while who whom why will with within without won would wouldn you your yours yourself yourselves ll ve re').split(' '),
);

// Words the -er rule would damage: the -er is not an agent suffix here.
const KEEP_ER = new Set(
  ('customer container computer cluster member number order master answer together whether however neither partner quarter ' +
    'chapter parameter register trigger printer browser wrapper character transfer consider another corner theater').split(' '),
);

const PLACEHOLDER_RE = new RegExp(PII_PLACEHOLDERS.map((p) => p.replace(/[[\]]/g, '\\$&')).join('|'), 'g');
const VOWEL = /[aeiouy]/;

function undouble(w: string): string {
  return /([b-df-hj-km-np-rtv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** Plural -s, -ing, -ed and agent -er off, then a final -e, so "managed", "managing", "manager" meet. */
export function stem(word: string): string {
  if (word.length <= 3 || isSkillForm(word) || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ch|sh|x|ss|zz)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is|os|as)$/.test(w)) w = w.slice(0, -1);
  if (w.endsWith('ing') && w.length >= 6 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && w.length >= 5 && !w.endsWith('eed') && VOWEL.test(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  else if (w.endsWith('er') && w.length >= 7 && !w.endsWith('eer') && !KEEP_ER.has(w)) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length >= 5) w = w.slice(0, -1);
  return w;
}

/** A one-word alias becomes its one-word canonical key ("k8s" -> "kubernetes", "golang" -> "go"). */
function canonicalWord(word: string): string {
  const key = skillKey(word);
  return key.includes(' ') ? word : key;
}

function push(out: string[], word: string): void {
  if (STOPWORDS.has(word) || /^\d+$/.test(word)) return;
  if (isSkillForm(word)) out.push(canonicalWord(word));
  else if (word.length >= 2) out.push(stem(word));
}

// Raw word -> its tokens. Prose repeats its words, so most lookups skip the regexes and the stemmer.
const WORD_CACHE = new Map<string, readonly string[]>();

function wordTokens(raw: string): readonly string[] {
  const out: string[] = [];
  let word = withLatinC(raw.replace(/'s$/, '').replace(/[.'/\-&_]+$/, ''));
  // A leading dot is punctuation ("...and"), unless it is the skill's own: ".NET", ".NET/C#" as well as "C#/.NET".
  if (word.startsWith('.') && !isSkillForm(word) && !isSkillForm(word.split(/[/\-&]/, 1)[0]!)) word = word.replace(/^\.+/, '');
  // "cross-platform", "html/css", "e.g": the parts are the words.
  if (isSkillForm(word)) push(out, word);
  else {
    for (const piece of word.split(/[/\-&]+/)) {
      if (piece.startsWith('.') && isSkillForm(piece)) push(out, piece);
      else for (const part of piece.split(/[_.']+/)) if (part !== '') push(out, part);
    }
  }
  return out;
}

/** Lowercase word tokens: "C++", "C#", ".NET", "Node.js", "CI/CD" stay whole; numbers and PII placeholders are dropped. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const lower = text.replace(PLACEHOLDER_RE, ' ').toLowerCase();
  for (const m of lower.matchAll(WORD_RE)) {
    let tokens = WORD_CACHE.get(m[0]);
    if (!tokens) {
      if (WORD_CACHE.size > 50_000) WORD_CACHE.clear();
      // A copy: the match would keep the whole text alive in the cache (own-copy.ts).
      const word = ownCopy(m[0]);
      tokens = wordTokens(word);
      WORD_CACHE.set(word, tokens);
    }
    for (const t of tokens) out.push(t);
  }
  return out;
}
