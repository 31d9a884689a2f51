// JSON parsing for untrusted text (model answers, tool arguments): bounded in size and depth, no prototype keys, and
// every string value storable (a NUL or a lone surrogate escaped in the text is replaced: src/text/storable.ts).
import { storableText } from '../text/storable.js';

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface SafeJsonOptions {
  /** Longer text is refused before parsing: a model answer or tool call has no reason to be bigger. */
  maxChars?: number;
  /** Deeper nesting is refused before parsing, so a hostile payload cannot exhaust the stack. */
  maxDepth?: number;
  /** 'reject' fails the parse (the model is asked again); 'strip' drops the keys. */
  forbiddenKeys?: 'reject' | 'strip';
}

export type SafeJsonResult = { ok: true; value: unknown } | { ok: false; error: string };

export const DEFAULT_MAX_JSON_CHARS = 200_000;
export const DEFAULT_MAX_JSON_DEPTH = 32;

/** Maximum bracket nesting outside strings; a linear scan that never recurses. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91 /* { [ */) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return max;
}

/**
 * The parser's complaint without the text it quotes: V8 adds up to twenty characters around the fault
 * (`Unexpected token 'L', ..."tionale": Led paymen"... is not valid JSON`). The text is a model's answer, often about
 * a candidate, and the complaint goes where erasure cannot follow it: the ledger's error column, logs, an unscored
 * entry's reason and its event. Its own words never hold a double quote, so the quote starts at the first one. The
 * re-ask loses nothing: it shows the model its whole answer beside the issue.
 */
function unquoted(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const quote = message.indexOf('"');
  return (quote < 0 ? message : message.slice(0, quote)).replace(/[\s,]+$/, '') || 'not parsable';
}

export function safeJsonParse(text: string, options: SafeJsonOptions = {}): SafeJsonResult {
  const maxChars = options.maxChars ?? DEFAULT_MAX_JSON_CHARS;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  if (typeof text !== 'string') return { ok: false, error: 'not a string' };
  if (text.length > maxChars) return { ok: false, error: `JSON too large: ${text.length} chars (limit ${maxChars})` };
  if (nestingDepth(text) > maxDepth) return { ok: false, error: `JSON nested deeper than ${maxDepth}` };
  let forbidden: string | null = null;
  let value: unknown;
  try {
    // JSON.parse itself makes "__proto__" an own key, but any later spread/merge/assign of the object would
    // follow it into the prototype; dropping the keys here keeps every downstream copy safe.
    value = JSON.parse(text, (key: string, v: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) {
        forbidden ??= key;
        return undefined;
      }
      return typeof v === 'string' ? storableText(v) : v;
    });
  } catch (err) {
    return { ok: false, error: `invalid JSON: ${unquoted(err)}` };
  }
  if (forbidden !== null && (options.forbiddenKeys ?? 'reject') === 'reject') {
    return { ok: false, error: `forbidden key "${forbidden}" in JSON` };
  }
  return { ok: true, value };
}
