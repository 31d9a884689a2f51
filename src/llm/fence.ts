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
] as const;
export type FenceTag = (typeof FENCE_TAGS)[number];

// Characters a model may read as angle brackets or slashes, and characters that are invisible.
const OPENERS = new Set(['<', '\uFF1C', '\uFE64', '\u2329', '\u3008', '\u27E8', '\u2039', '\u276E', '\u02C2', '\u1438']);
const CLOSERS = new Set(['>', '\uFF1E', '\uFE65', '\u232A', '\u3009', '\u27E9', '\u203A', '\u276F', '\u02C3', '\u1433']);
const SLASHES = new Set(['/', '\uFF0F', '\u2215', '\u2044', '\u29F8', '\u2571']);
// Format, joiner and variation-selector code points that render as nothing.
const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00ad, 0x00ad], [0x034f, 0x034f], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f],
  [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0],
];
const isInvisible = (cp: number) => INVISIBLE_RANGES.some(([lo, hi]) => cp >= lo && cp <= hi);
// Cyrillic and Greek look-alikes of the Latin letters in our tag names.
const LOOKALIKES: Record<string, string> = {
  а: 'a', е: 'e', о: 'o', р: 'p', с: 'c', х: 'x', у: 'y', і: 'i', ѕ: 's', ј: 'j', ԁ: 'd', һ: 'h', ӏ: 'l', ԛ: 'q', ԝ: 'w', к: 'k', м: 'm', т: 't', н: 'h', в: 'b',
  α: 'a', ε: 'e', ο: 'o', ρ: 'p', ι: 'i', κ: 'k', ν: 'v', τ: 't', υ: 'u', μ: 'm', ɡ: 'g', ı: 'i',
};
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', sol: '/', lowbar: '_', nbsp: ' ', hyphen: '-', dash: '-', amp: '&' };

// Escapes that can spell a character: HTML entities (also double-encoded), JS/JSON escapes, URL encoding.
const ESCAPE = new RegExp(
  [
    '&(?:amp;)*#x0*([0-9a-f]{1,6});?',
    '&(?:amp;)*#0*([0-9]{1,7});?',
    '&(?:amp;)*([a-z]{2,6});',
    '&(?:amp;)*(lt|gt)(?![a-z])',
    '\\\\+u\\{0*([0-9a-f]{1,6})\\}',
    '\\\\+u([0-9a-f]{4})',
    '\\\\+x([0-9a-f]{2})',
    '%(?:25)*([0-9a-f]{2})',
    '\\\\+(/)',
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
  if (isInvisible(ch.codePointAt(0) ?? 0)) return '';
  if (OPENERS.has(ch)) return '<';
  if (CLOSERS.has(ch)) return '>';
  if (SLASHES.has(ch)) return '/';
  if (/^\s$/u.test(ch)) return ' ';
  let out = '';
  for (const c of ch.normalize('NFKC').toLowerCase()) out += LOOKALIKES[c] ?? c;
  return out;
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

const NAME_PATTERN = [...FENCE_TAGS]
  .sort((a, b) => b.length - a.length)
  .map((t) => t.replace(/_/g, '[_\\- ]?'))
  .join('|');
// An opener, an optional slash, one of our names as a whole word, then attributes up to a closer if there is one.
const TAG_IN_VIEW = new RegExp(`<[ ]*(/?)[ ]*(${NAME_PATTERN})(?![a-z0-9_-])(?:[^<>]{0,256}>)?|<\\|[a-z0-9_]{1,32}\\|>`, 'g');

export interface FenceTagMatch {
  /** Span in the original text. */
  start: number;
  end: number;
  text: string;
  closing: boolean;
  name: string;
}

/**
 * Every way a '<' can appear in the view, as a test on the original text: a tag (and a control token) starts
 * with one. A character maps to '<' only if it is '<' or one of OPENERS (no other code point's NFKC form
 * contains '<', checked over all of Unicode); an escape decodes to one only if it is numeric (&#, \u, \x),
 * &lt, or %3c (a percent escape decodes a single byte). A text without any of these has no tag to find,
 * which is nearly every resume: the view, a few arrays per character, need not be built at all.
 */
const MAYBE_OPENER = new RegExp(`[${[...OPENERS].join('')}]|&(?:amp;)*(?:#|lt)|\\\\|%(?:25)*3c`, 'i');

/** Every fence-like tag (and chat-template control token) in the text, in whatever encoding or disguise. */
export function findFenceTags(content: string): FenceTagMatch[] {
  if (!MAYBE_OPENER.test(content)) return [];
  const view = buildView(content);
  const found: FenceTagMatch[] = [];
  for (const m of view.text.matchAll(TAG_IN_VIEW)) {
    const a = m.index;
    const b = a + m[0].length - 1;
    const start = view.starts[a] ?? 0;
    const end = view.ends[b] ?? content.length;
    const name = (m[2] ?? m[0].slice(2, -2)).replace(/[- ]/g, '_');
    found.push({ start, end, text: content.slice(start, end), closing: m[1] === '/', name });
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
      out += text.slice(at, m.start) + `[${m.closing ? '/' : ''}${m.name}]`;
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
