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
