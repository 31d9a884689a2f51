// Text of unknown origin (an error's message, a model server's error body) made fit for a log line.
import { scrub } from './scrubber.js';
import { storableText } from './storable.js';
import { withoutEcho } from './without-echo.js';

/** Longest message a log line keeps; the start of a message says what went wrong, the rest is mostly echo. */
export const MAX_MESSAGE_CHARS = 500;

// Words after which a quoted word names a thing of ours (a relation, a constraint, a type), not a value.
const NAMING_WORDS = new Set([
  'relation', 'constraint', 'column', 'table', 'type', 'index', 'schema', 'function', 'encoding', 'sequence', 'database',
  'role', 'operator', 'extension', 'trigger', 'view', 'domain', 'collation', 'parameter', 'setting', 'option',
  'reading', 'property', 'module', 'package', 'agent', 'model', 'tool', 'command', 'field', 'key', 'variable', 'method',
]);
const IDENTIFIER = /^[A-Za-z_][\w$.:/-]{0,80}$/;
// A quote opens a span only where a word does not run through it ("model's" is no quotation).
const STRAIGHT_QUOTED = /(?<![\p{L}\p{N}_])(["'`])([^\n]*?)\1(?![\p{L}\p{N}_])/gu;
const CURLY_QUOTED = /(“)([^\n”]*)”|(‘)([^\n’]*)’(?![\p{L}\p{N}_])/gu;

function namesAThing(whole: string, offset: number, inner: string): boolean {
  const before = /([\p{L}_]+)\s*$/u.exec(whole.slice(Math.max(0, offset - 40), offset))?.[1]?.toLowerCase();
  return before !== undefined && NAMING_WORDS.has(before) && IDENTIFIER.test(inner) && !inner.includes('@');
}

/**
 * Cuts quoted values from a message, keeping a quoted identifier after a word that names one (`constraint "x"`,
 * `column "email"`, `reading 'length'`): PostgreSQL and V8 quote the value they could not read, which may be anyone's.
 */
export function cutQuotedValues(text: string): string {
  return text
    .replace(STRAIGHT_QUOTED, (all, quote: string, inner: string, offset: number, whole: string) =>
      namesAThing(whole, offset, inner) ? all : `${quote}…${quote}`,
    )
    .replace(CURLY_QUOTED, (all, open: string | undefined) => (open ? '“…”' : '‘…’'));
}

/** Secrets this process holds (the model provider's key): cut from every text made fit for a log, wherever echoed. */
const secrets = new Set<string>();

/**
 * Registers a secret redactSecrets cuts. A model server (or a gateway before it) may repeat the key it was sent in
 * its error ("Incorrect API key provided: sk-..."), and that text reaches a run's error, the trail and the logs, which
 * every organisation's users and the operators read: the key is the operator's, shared by all of them.
 */
export function neverLog(secret: string | null | undefined): void {
  // A short value would cut common words: such a "key" is a local server's placeholder, not a secret.
  if (secret && secret.length >= 8) secrets.add(secret);
}

// Credentials of any origin: a bearer token, an OpenAI-style key.
const CREDENTIAL = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}|\bsk-[A-Za-z0-9_-]{16,}/g;

/** The text with every registered secret and anything shaped as a credential replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  return out.replace(CREDENTIAL, (_all, bearer: string | undefined) => `${bearer ?? ''}[REDACTED]`);
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Words of unknown origin made fit for a log (or a ledger row): secrets cut (redactSecrets), emails, phones, links and addresses scrubbed, quoted
 * values cut, clipped, and storable (no NUL, no lone surrogate). A name outside quotes and outside a header or contact line is not recognisable and stays (docs/security.md),
 * unless it is in what the text echoes of `sent` (the request a model server's error answers): that is cut too.
 */
export function logSafeText(text: string, max = MAX_MESSAGE_CHARS, sent = ''): string {
  // Clipped first as well: the scrubber's cost grows with the text, and what is cut is never logged. The echo is cut
  // after the scrubber (the request was scrubbed text too, so their placeholders agree) and the quoted values (a cut
  // that took one quote of a pair would leave a quoted value bare).
  // Secrets go before any clip: a cut through one would leave its start.
  return storableText(clip(withoutEcho(cutQuotedValues(scrub(clip(redactSecrets(text), max * 4), { detectNames: false, contactNames: true })), sent), max));
}

