// Text of unknown origin (a model's answer, a server's error) made storable: PostgreSQL refuses a NUL character in
// text and jsonb, and a lone UTF-16 surrogate in jsonb (JSON.stringify writes it as a "\ud83d" escape). Either would
// make the statement that writes it fail: an audit-trail batch, a ledger row, a scored candidate.

/** A UTF-16 surrogate with no partner (with the u flag, a pair is one code point and does not match). */
export const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;
// Deeper than any answer a model server sends: a subtree below it is left as it is rather than walked.
const MAX_DEPTH = 64;

/** The text with each NUL and lone surrogate replaced by U+FFFD, as a UTF-8 decoder does with bytes it cannot read. */
export function storableText(text: string): string {
  const paired = LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
  return paired.includes('\u0000') ? paired.replaceAll('\u0000', '\uFFFD') : paired;
}

/** A parsed JSON value with every string in it, keys too, made storable; the value itself where nothing changes. */
export function storableJson<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => storableJson(item, depth + 1));
    return (items.some((item, i) => item !== value[i]) ? items : value) as T;
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const k = storableText(key);
    const v = storableJson(item, depth + 1);
    if (k !== key || v !== item) changed = true;
    return [k, v] as const;
  });
  // fromEntries defines each key as an own property: a "__proto__" key stays data, never a prototype.
  return (changed ? Object.fromEntries(entries) : value) as T;
}

/** The first max UTF-16 units of text, one fewer where the cut would split a surrogate pair (an emoji, 𝐀). */
export function prefixUnits(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

// An escape JSON.stringify writes for a NUL or a lone surrogate (it writes a pair as the characters themselves),
// after an even number of backslashes: one after an odd number is an escaped backslash and text.
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi;

/**
 * JSON.stringify(value) with each NUL and lone surrogate in its strings written as U+FFFD: the text a jsonb parameter
 * can take whatever strings the value holds. For a value whose strings may come from outside (a model, a resume).
 */
export function storableJsonText(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\u') ? json.replace(UNSTORABLE_ESCAPE, '$1\\ufffd') : json;
}
