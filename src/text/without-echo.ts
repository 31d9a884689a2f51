// A model server's error message without what it repeats of the request. An error body may echo the prompt (a proxy
// appending "Request excerpt: ...", a validator quoting the input), and the prompt, scrubbed as it is, can still hold
// a name the scrubber could not tell from other words ("colleagues call me Sam Keller"). The request is kept in the
// audit trail; a log line, a ledger row and a run's error need only the server's own words.

/** Words in a row, in the request in the same order, from which a stretch of the message is taken for an echo. */
const ECHO_WORDS = 3;
const WORD = /[\p{L}\p{N}]+/gu;
/** What stands where an echo was cut. */
// ASCII: the scrubber, which our own messages pass through again on their way to a log, writes an ellipsis so.
export const ECHO_MARK = '[...]';

/**
 * `sent`: the text of the request (its messages, or the inputs embedded). Every stretch of the message whose words
 * run, three or more in a row, as the request's do (case aside) becomes ECHO_MARK; what is between such stretches, the
 * server's own words, stays. A sentence of the server's that happens to share three words in a row with the prompt is
 * cut too: a lost word or two of diagnosis, never a kept echo.
 */
export function withoutEcho(message: string, sent: string): string {
  // A JSON-escaped echo (\n, \" and \uXXXX between the words) is read as the words it escapes: the escape is no word.
  const unescaped = message.replace(/\\(?:u[0-9a-fA-F]{4}|[nrtbf"\\/])/g, (e) => ' '.repeat(e.length));
  const words = [...unescaped.matchAll(WORD)];
  if (!sent || words.length < ECHO_WORDS) return message;
  const sentWords = (sent.match(WORD) ?? []).map((w) => w.toLowerCase());
  const grams = new Set<string>();
  for (let i = 0; i + ECHO_WORDS <= sentWords.length; i++) grams.add(sentWords.slice(i, i + ECHO_WORDS).join(' '));
  const lower = words.map((m) => m[0].toLowerCase());
  const echoed = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + ECHO_WORDS <= words.length; i++) {
    if (grams.has(lower.slice(i, i + ECHO_WORDS).join(' '))) echoed.fill(true, i, i + ECHO_WORDS);
  }
  let out = '';
  let kept = 0;
  for (let i = 0; i < words.length; i++) {
    if (!echoed[i]) continue;
    let j = i;
    while (j + 1 < words.length && echoed[j + 1]) j++;
    out += message.slice(kept, words[i]!.index) + ECHO_MARK;
    kept = words[j]!.index + words[j]![0].length;
    i = j;
  }
  return out + message.slice(kept);
}
