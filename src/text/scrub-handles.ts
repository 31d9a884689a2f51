// Handles written in prose rather than after a label: with the platform named after them ("@janedoe on Twitter",
// "@jdoe85 (GitHub)", "@jdoe – Mastodon"), after words that hand one over ("follow me @janedoe"), and fediverse handles
// ("@jane@mastodon.social"). Part of the scrubber (scrubber.ts), which reads labelled handles ("Twitter: @janedoe")
// itself. An "@" word with neither ("@angular/core", "@Override", "meet @ the office") is no handle here.

const PLATFORMS =
  'twitter|x|github|gitlab|bitbucket|linkedin|telegram|instagram|insta|tiktok|mastodon|threads|bluesky|bsky|medium|substack|' +
  'reddit|youtube|twitch|discord|slack|kaggle|dribbble|behance|keybase|hashnode|dev\\.to|codepen|leetcode|hackerrank|' +
  'stack[ \\t]?overflow|facebook|snapchat|signal|skype|wechat|viber|whatsapp|fediverse';
// A handle: no path, package scope or address follows it ("@angular/core", "@jane@host" is a fediverse handle, below).
const HANDLE_RE = /(?<![\w@.\-/\\])@[A-Za-z0-9_][\w.-]{0,63}(?![\w.\-@/])/g;
// The platform after it: "on", "at", "via", "in" or "@" and its name, its name in brackets, or after a dash.
const PLATFORM_AFTER = new RegExp(
  `^[ \\t]{0,3}(?:(?:on|at|via|in|@)[ \\t]{1,3}|[([][ \\t]{0,2}(?:on[ \\t]+)?|[-–—][ \\t]{0,3})(?:${PLATFORMS})(?![\\p{L}\\d-])`,
  'iu',
);
// Words that hand a handle over: "follow me @janedoe", "ping me at @jdoe85", "DM me: @jdoe".
const HANDOVER_BEFORE = /\b(?:follow|find|ping|dm|message|reach|contact|tag)[ \t]+(?:me|us)(?:[ \t]+(?:at|on|via))?[ \t]*[:\-–—]?[ \t]*$/i;
// "@user@host.tld": a fediverse account, which the e-mail rules leave (an address has no "@" before it).
const FEDIVERSE_RE = /(?<![\w.@\-/])@[A-Za-z0-9_][\w.-]{0,63}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,4}(?![\w-])/g;

/** The text with its handles in prose replaced by [URL]; a trailing full stop or dash belongs to the sentence. */
export function scrubInlineHandles(text: string): string {
  if (!text.includes('@')) return text;
  const out = text.replace(FEDIVERSE_RE, '[URL]');
  return out.replace(HANDLE_RE, (hit: string, offset: number, whole: string) => {
    const trail = /[.-]+$/.exec(hit)?.[0] ?? '';
    const handle = hit.slice(0, hit.length - trail.length);
    if (handle.length < 3) return hit;
    const after = whole.slice(offset + handle.length, offset + handle.length + 40);
    const before = whole.slice(Math.max(0, offset - 40), offset);
    return PLATFORM_AFTER.test(after) || HANDOVER_BEFORE.test(before) ? `[URL]${trail}` : hit;
  });
}
