// Replacement with a decision per match: the scrubber's patterns match broadly, and code decides what each match is.

/**
 * A replacement, optionally starting before the match (a pattern anchored on "@" reaches back for the local part) or
 * ending before its end (the match took more than the decision keeps).
 */
export type Decision = string | { from: number; to?: number; replacement: string } | null;
export type Decide = (match: RegExpExecArray, text: string) => Decision;

/**
 * Like String.replace, but a rejected match (null) only skips one character, so overlaps still get a chance. The
 * pattern runs on text; what is kept comes from source, a copy of the same length (text itself unless given).
 */
export function replaceDecided(text: string, re: RegExp, decide: Decide, source = text): string {
  re.lastIndex = 0;
  let out = '';
  let copied = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const decision = decide(m, text);
    const from = typeof decision === 'object' && decision !== null ? decision.from : m.index;
    if (decision === null || from < copied) {
      re.lastIndex = m.index + 1;
      continue;
    }
    out += source.slice(copied, from) + (typeof decision === 'string' ? decision : decision.replacement);
    copied = typeof decision === 'object' && decision.to !== undefined ? decision.to : m.index + m[0].length;
    re.lastIndex = Math.max(copied, m.index + 1);
  }
  return copied === 0 ? source : out + source.slice(copied);
}
