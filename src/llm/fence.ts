// Fences user text for prompts: <tag>…</tag>, with every fence-like tag inside the text (in any disguise) defanged.
export const FENCE_TAGS = [
  'resume',
  'role_title',
  'role_description',
  'role',
  'candidate',
  'candidates',
  'skills',
  'hints',
  'queries',
  'query',
  'evidence',
  'document',
  'context',
  'input',
  'output',
  'system',
  'developer',
  'instructions',
  'user',
  'assistant',
  'tool',
  'tool_result',
  'issues',
] as const;
export type FenceTag = (typeof FENCE_TAGS)[number];

// Characters a model may read as angle brackets or slashes. Compatibility forms (full-width, small) are found by NFKD.
// Doubled and ornamental angles too (《 « ⟪ ❬ ❰): "«/resume»" reads as a closing tag. « and 《 are also quotation
// marks (French, Chinese), so with them only a closing tag counts (QUOTATION_OPENERS): « document » is a quoted word.
const OPENERS = new Set([
  '<', '\uFF1C', '\uFE64', '\u2329', '\u3008', '\u27E8', '\u2039', '\u276E', '\u02C2', '\u1438',
  '\u300A', '\u00AB', '\u27EA', '\u276C', '\u2770',
]);
const CLOSERS = new Set([
  '>', '\uFF1E', '\uFE65', '\u232A', '\u3009', '\u27E9', '\u203A', '\u276F', '\u02C3', '\u1433',
  '\u300B', '\u00BB', '\u27EB', '\u276D', '\u2771',
]);
const QUOTATION_OPENERS = new Set(['\u00AB', '\u300A']);
const SLASHES = new Set(['/', '\uFF0F', '\u2215', '\u2044', '\u29F8', '\u2571']);
// Dropped from the comparison view: anything that renders as nothing (default-ignorable and format code points:
// joiners, variation selectors, the tag block, fillers, interlinear annotation) and every combining mark.
const DROPPED = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}]$/u;
/** View stand-in for a vertical stroke (palochka, capital iota …): a model may read it as I or as l. */
const STROKE = '\x01';
/**
 * Look-alikes of a-z from Greek, Cyrillic, Armenian, Cherokee and Latin extensions, looked up per character
 * BEFORE lower-casing: capital Greek Nu looks like N, its lower case ν like v. Characters NFKD already reduces to
 * ASCII (full-width, mathematical, circled, accented) need no entry.
 */
const LOOKALIKES: Record<string, string> = {
  // Greek capitals and small letters.
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: STROKE, Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x', Ϲ: 'c', Ϳ: 'j', Ϝ: 'f',
  α: 'a', β: 'b', γ: 'y', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', σ: 'o', τ: 't', υ: 'u', χ: 'x', ω: 'w', ϲ: 'c', ϳ: 'j',
  ϱ: 'p', ϵ: 'e', ς: 'c',
  // Cyrillic capitals and small letters.
  А: 'a', В: 'b', Е: 'e', К: 'k', М: 'm', Н: 'h', О: 'o', Р: 'p', С: 'c', Т: 't', У: 'y', Х: 'x', Ѕ: 's', І: STROKE, Ј: 'j', Ӏ: STROKE,
  Ԁ: 'd', Һ: 'h', Ԛ: 'q', Ԝ: 'w', Ү: 'y', Ь: 'b', Ԍ: 'g',
  а: 'a', в: 'b', г: 'r', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', п: 'n', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ь: 'b', ѕ: 's',
  і: 'i', ј: 'j', ӏ: STROKE, ԁ: 'd', һ: 'h', ԛ: 'q', ԝ: 'w', ү: 'y', ҳ: 'x', ԍ: 'g',
  // Armenian.
  Օ: 'o', Ս: 'u', Լ: 'l', Ց: 'g', օ: 'o', ս: 'u', ո: 'n', հ: 'h', ց: 'g', զ: 'q', ա: 'w', ք: 'p',
  // Cherokee capitals (their lower case is a different block).
  Ꭺ: 'a', Ᏼ: 'b', Ꭱ: 'r', Ꭵ: 'i', Ꮤ: 'w', Ꮯ: 'c', Ꭰ: 'd', Ꭼ: 'e', Ꮐ: 'g', Ꮋ: 'h', Ꭻ: 'j', Ꮶ: 'k', Ꮮ: 'l', Ꮇ: 'm', Ꮲ: 'p', Ꮪ: 's', Ꭲ: 't', Ꮩ: 'v', Ꮃ: 'w', Ꮓ: 'z',
  // Latin extensions: small capitals, IPA and other letters that do not decompose.
  ɑ: 'a', ɒ: 'a', ɐ: 'a', ʙ: 'b', ƅ: 'b', ɔ: 'c', ᴄ: 'c', ɗ: 'd', ᴅ: 'd', ɛ: 'e', ᴇ: 'e', ɡ: 'g', ɢ: 'g', ʜ: 'h', ɦ: 'h', ı: 'i', ɩ: 'i',
  ɪ: 'i', ǀ: STROKE, ʝ: 'j', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ɭ: 'l', ᴍ: 'm', ɴ: 'n', ɲ: 'n', ᴏ: 'o', ɵ: 'o', ᴘ: 'p', ʀ: 'r', ɾ: 'r', ꜱ: 's', ʂ: 's',
  ᴛ: 't', ᴜ: 'u', ʋ: 'u', ᴠ: 'v', ʌ: 'v', ᴡ: 'w', ʏ: 'y', ᴢ: 'z', ʐ: 'z', ꞯ: 'q', ȷ: 'j', ɟ: 'j', ƙ: 'k', ɱ: 'm', ɳ: 'n', ɽ: 'r',
};
const NAMED_ENTITIES: Record<string, string> = {
  lt: '<', gt: '>', lang: '\u2329', rang: '\u232A', lsaquo: '\u2039', rsaquo: '\u203A', sol: '/', frasl: '\u2044',
  lsqb: '[', rsqb: ']', lbrack: '[', rbrack: ']', verbar: '|', lowbar: '_', nbsp: ' ', hyphen: '-', dash: '-', amp: '&',
  // Invisible characters, which the view drops as it drops the characters themselves ("</r&shy;esume>").
  shy: '', zwj: '', zwnj: '', zerowidthspace: '', nobreak: '', lrm: '', rlm: '', invisibletimes: '', invisiblecomma: '',
  negativethinspace: '', negativemediumspace: '', negativethickspace: '', negativeverythinspace: '',
};

// Escapes that can spell a character: HTML entities (also double-encoded), JS/JSON escapes, URL encoding.
const ESCAPE = new RegExp(
  [
    '&(?:amp;)*#x0*([0-9a-f]{1,6});?',
    '&(?:amp;)*#0*([0-9]{1,7});?',
    '&(?:amp;)*([a-z]{2,24});',
    '&(?:amp;)*(lt|gt)(?![a-z])',
    '(?<!\\\\)\\\\+u\\{0*([0-9a-f]{1,6})\\}',
    '(?<!\\\\)\\\\+u([0-9a-f]{4})',
    '(?<!\\\\)\\\\+x([0-9a-f]{2})',
    '%(?:25)*([0-9a-f]{2})',
    '(?<!\\\\)\\\\+(/)',
  ].join('|'),
  'iy',
);

function decodeEscape(m: RegExpExecArray): string | null {
  const [, hexEntity, decEntity, named, bareNamed, uBrace, u4, x2, pct, slash] = m;
  const hex = hexEntity ?? uBrace ?? u4 ?? x2 ?? pct;
  if (hex !== undefined) return safeFromCodePoint(parseInt(hex, 16));
  if (decEntity !== undefined) return safeFromCodePoint(parseInt(decEntity, 10));
  const name = (named ?? bareNamed)?.toLowerCase();
  if (name !== undefined) return NAMED_ENTITIES[name] ?? null;
  return slash ?? null;
}

function safeFromCodePoint(cp: number): string | null {
  return cp >= 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : null;
}

/** One original character (or decoded escape) as the plain lower-case ASCII a tag detector compares. */
function canonical(ch: string): string {
  const code = ch.charCodeAt(0);
  // Fast path for ASCII, which is nearly all of any resume.
  if (ch.length === 1 && code < 0x80) return code <= 0x20 ? ' ' : ch.toLowerCase();
  let out = seen.get(ch);
  if (out === undefined) {
    // A text uses few distinct non-ASCII characters: each is normalised once, not once per occurrence.
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.set(ch, (out = canonicalSlow(ch)));
  }
  return out;
}

const seen = new Map<string, string>();
const MAX_SEEN = 8192;

function canonicalSlow(ch: string): string {
  // Some look-alikes decompose to a letter that no longer looks like one (ϲ, the lunate sigma, to ς).
  const direct = LOOKALIKES[ch];
  if (direct !== undefined) return direct;
  let out = '';
  // NFKD splits accents (İ, ≮ = < + U+0338) and compatibility forms (full-width, mathematical) into base + marks.
  for (const c of ch.normalize('NFKD')) {
    const mapped = canonicalBase(c);
    if (mapped !== null) {
      out += mapped;
      continue;
    }
    for (const l of c.toLowerCase().normalize('NFKD')) out += canonicalBase(l) ?? l;
  }
  return out;
}

/** A character after decomposition, or null when only its lower case can tell. */
function canonicalBase(c: string): string | null {
  const code = c.charCodeAt(0);
  if (c.length === 1 && code < 0x80) return code <= 0x20 ? ' ' : c.toLowerCase();
  if (DROPPED.test(c)) return '';
  if (OPENERS.has(c)) return '<';
  if (CLOSERS.has(c)) return '>';
  if (SLASHES.has(c)) return '/';
  if (/^\s$/u.test(c)) return ' ';
  return LOOKALIKES[c] ?? null;
}

interface View {
  text: string;
  /** view index -> [start, end) of the original text it came from. */
  starts: number[];
  ends: number[];
}

function buildView(content: string): View {
  let text = '';
  const starts: number[] = [];
  const ends: number[] = [];
  let i = 0;
  while (i < content.length) {
    let decoded: string | null = null;
    let length = 0;
    const c = content[i];
    if (c === '&' || c === '\\' || c === '%') {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(content);
      if (m) {
        decoded = decodeEscape(m);
        length = m[0].length;
      }
    }
    if (decoded === null) {
      const cp = content.codePointAt(i) ?? 0;
      decoded = String.fromCodePoint(cp);
      length = cp > 0xffff ? 2 : 1;
    }
    for (const v of canonical(decoded)) {
      text += v;
      starts.push(i);
      ends.push(i + length);
    }
    i += length;
  }
  return { text, starts, ends };
}

// A name as the view spells it: _ may be -, space or nothing; i and l may be a vertical-stroke look-alike.
const spelled = (name: string) => name.replace(/_/g, '[_\\- ]?').replace(/[il]/g, (c) => `[${c}\\x01]`);
const NAME_PATTERN = [...FENCE_TAGS]
  .sort((a, b) => b.length - a.length)
  .map(spelled)
  .join('|');
// Chat-template control tokens of open-weight models: Gemma's turns, Llama 2 / Mistral's <s>, <<SYS>> and [INST].
const CONTROL_NAMES = ['start_of_turn', 'end_of_turn', 'bos', 'eos', 's'].map(spelled).join('|');
/**
 * Groups: (1, 2) a fence tag: an opener, an optional slash, one of our names as a whole word, then attributes up to a
 * closer if there is one; (3, 4) <start_of_turn>, </s> …; (5, 6) <<SYS>>, <</SYS>>; (7, 8) [INST], [/INST];
 * (9) the <|…|> form (ChatML, DeepSeek's <｜end▁of▁sentence｜>).
 */
const TAG_IN_VIEW = new RegExp(
  [
    `<[ ]*(/?)[ ]*(${NAME_PATTERN})(?![a-z0-9_\\x01-])(?:[^<>]{0,256}>)?`,
    `<[ ]*(/?)[ ]*(${CONTROL_NAMES})[ ]*>`,
    `<<[ ]*(/?)[ ]*(sys)[ ]*>>`,
    `\\[[ ]*(/?)[ ]*(${spelled('inst')})[ ]*\\]`,
    `<\\|[ ]?([a-z0-9_\u2581.-]{1,40})[ ]?\\|>`,
  ].join('|'),
  'g',
);

/** The canonical name of a view match: strokes resolved against the names, separators as underscores. */
function nameOf(spelledName: string, candidates: readonly string[]): string {
  const name = spelledName.replace(/[- \u2581]/g, '_');
  if (!name.includes(STROKE)) return name;
  const squash = (n: string) => n.replace(/_/g, '');
  const target = squash(name);
  const hit = candidates.find((c) => {
    const t = squash(c);
    return t.length === target.length && [...t].every((ch, i) => target[i] === ch || (target[i] === STROKE && (ch === 'i' || ch === 'l')));
  });
  return hit ?? name.replaceAll(STROKE, 'i');
}

export interface FenceTagMatch {
  /** Span in the original text. */
  start: number;
  end: number;
  text: string;
  closing: boolean;
  name: string;
  /** A chat-template control token rather than one of FENCE_TAGS. */
  control: boolean;
}

/**
 * Every way a '<' can appear in the view, as a test on the original text: a tag (and a control token) starts
 * with one. A character maps to '<' only if it is '<', one of OPENERS or U+226E (≮, which NFKD splits into '<' and
 * a combining mark; no other code point decomposes to something containing '<', checked over all of Unicode); an
 * escape decodes to one only if it is numeric (&#, \u, \x), a named entity (&lt, &lang;, &lsaquo;), or %3c (a
 * percent escape decodes a single byte). A text without any of these has no tag to find, which is nearly every
 * resume: the view, a few arrays per character, need not be built at all. [INST] has no '<': see MAYBE_BRACKET_TOKEN.
 */
const MAYBE_OPENER = new RegExp(`[${[...OPENERS].join('')}\u226E]|&(?:amp;)*(?:#|lt|lang|lsaquo|lsqb|lbrack)|\\\\|%(?:25)*(?:3c|5b)`, 'i');
/**
 * Whether the text may hold [INST] or [/INST], which have no '<': a bracket (any that NFKD turns into '[') followed
 * within 24 characters, before any closing bracket, by "inst" or by something the view may read as letters or
 * brackets (a non-ASCII character, an escape). [EMAIL], [1] and [x] are not; [café] goes to the view, needlessly.
 */
const MAYBE_BRACKET_TOKEN = /[[\uFF3B\uFE47][^\]\uFF3D\uFE48\n]{0,24}?(?:[^\p{ASCII}]|[&\\%]|i[\s/]*n[\s/]*s[\s/]*t)/iu;

/** Every fence-like tag (and chat-template control token) in the text, in whatever encoding or disguise. */
export function findFenceTags(content: string): FenceTagMatch[] {
  if (!MAYBE_OPENER.test(content) && !MAYBE_BRACKET_TOKEN.test(content)) return [];
  const view = buildView(content);
  const found: FenceTagMatch[] = [];
  for (const m of view.text.matchAll(TAG_IN_VIEW)) {
    const a = m.index;
    const b = a + m[0].length - 1;
    const start = view.starts[a] ?? 0;
    const end = view.ends[b] ?? content.length;
    const control = m[2] === undefined;
    const spelledName = m[2] ?? m[4] ?? m[6] ?? m[8] ?? m[9] ?? '';
    const name = nameOf(spelledName, control ? ['start_of_turn', 'end_of_turn', 'bos', 'eos', 's', 'inst'] : FENCE_TAGS);
    const slash = m[1] ?? m[3] ?? m[5] ?? m[7];
    // A quotation mark before a word is a quote, not a tag: « document », 《 resume 》.
    if (slash !== '/' && QUOTATION_OPENERS.has(content[start] ?? '')) continue;
    found.push({ start, end, text: content.slice(start, end), closing: slash === '/', name, control });
  }
  return found;
}

/** Rewrites each fence-like tag to a bracketed look-alike ([/resume]) that no reader takes for a real tag. */
export function neutraliseFenceTags(content: string): string {
  let text = content;
  // Rewriting can bring pieces of an escape together; repeat until nothing is found (each pass removes openers).
  for (let pass = 0; pass < 5; pass++) {
    const matches = findFenceTags(text);
    if (matches.length === 0) return text;
    let out = '';
    let at = 0;
    for (const m of matches) {
      // [name] reads as a label, not a tag; [INST] itself is bracketed, so its rewrite uses parentheses.
      const label = `${m.closing ? '/' : ''}${m.name}`;
      out += text.slice(at, m.start) + (m.name === 'inst' ? `(${label})` : `[${label}]`);
      at = m.end;
    }
    text = out + text.slice(at);
  }
  // Still not clean after 5 passes: an adversarial input; drop every opener-like character as a last resort.
  return [...text].map((ch) => (canonical(ch) === '<' ? '[' : ch)).join('').replace(/[&\\%]/g, ' ');
}

export function isFenceTag(tag: string): tag is FenceTag {
  return (FENCE_TAGS as readonly string[]).includes(tag);
}

/** User text inside <tag>…</tag>; the text cannot close this fence or open another one. */
export function fence(tag: FenceTag, content: string): string {
  if (!isFenceTag(tag)) throw new TypeError(`not a fence tag: ${String(tag)}`);
  return `<${tag}>\n${neutraliseFenceTags(content)}\n</${tag}>`;
}
