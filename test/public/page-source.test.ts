// The recruiter page's sources, read as text (no browser needed): no HTML-parsing sink for API data, nothing
// inline that the service's CSP would block, and no named control a script-less submission could put in a URL.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { securityHeaders } from '../../src/http/security-headers.js';

const PUBLIC = fileURLToPath(new URL('../../public/', import.meta.url));

async function scripts(): Promise<Array<{ file: string; code: string }>> {
  const files = (await readdir(PUBLIC)).filter((f) => f.endsWith('.js'));
  assert.ok(files.length >= 4, `the page's modules: ${files.join(', ')}`);
  return Promise.all(files.map(async (file) => ({ file, code: await readFile(join(PUBLIC, file), 'utf8') })));
}

/** Code without its comments, so a comment that names a sink (render.js says "never innerHTML") is not a hit. */
const withoutComments = (code: string) => code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

test('no module of the page uses an HTML-parsing or code-evaluating sink, an inline handler or a javascript: URL', async () => {
  const sinks: Array<[string, RegExp]> = [
    ['innerHTML/outerHTML', /\.(inner|outer)HTML\b/],
    ['insertAdjacentHTML', /insertAdjacentHTML/],
    ['document.write', /document\.write/],
    ['eval / new Function / string timers', /\beval\s*\(|new\s+Function\b|set(Timeout|Interval)\s*\(\s*['"`]/],
    ['createContextualFragment / DOMParser', /createContextualFragment|DOMParser/],
    ['an on* attribute or property', /setAttribute\(\s*['"`]on|\.on[a-z]+\s*=(?!=)/],
    ['a javascript: URL', /javascript:/i],
    ['a style attribute (blocked by a strict style-src)', /setAttribute\(\s*['"`]style/],
    ['console output (the key must not reach a log)', /\bconsole\./],
  ];
  const hits: string[] = [];
  for (const { file, code } of await scripts()) {
    const bare = withoutComments(code);
    for (const [name, re] of sinks) if (re.test(bare)) hits.push(`${file}: ${name}`);
  }
  assert.deepEqual(hits, []);
});

test('index.html has no inline script, style or handler, and no control with a name or a maxlength', async () => {
  const html = (await readFile(join(PUBLIC, 'index.html'), 'utf8')).replace(/<!--[\s\S]*?-->/g, '');
  const inlineScripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter(([, attrs, body]) => !/\bsrc=/.test(attrs!) || body!.trim());
  assert.deepEqual(inlineScripts.map(([s]) => s), [], 'every script is a file');
  assert.doesNotMatch(html, /<style\b/, 'no style element');
  assert.doesNotMatch(html, /\sstyle=/, 'no style attribute');
  assert.doesNotMatch(html, /\son[a-z]+=/i, 'no inline handler');
  const controls = [...html.matchAll(/<(input|select|textarea|button)\b[^>]*>/g)].map(([tag]) => tag);
  assert.ok(controls.length > 10, 'the form controls were found');
  assert.deepEqual(controls.filter((t) => /\sname=/.test(t)), [], 'no control is named: a submission without app.js carries nothing');
  assert.deepEqual(controls.filter((t) => /\smaxlength=/.test(t)), [], 'no control cuts pasted text short');
});

test('the CSP the page is served with allows scripts only from the service, never inline or evaluated', () => {
  const csp = securityHeaders()['content-security-policy'] ?? '';
  const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `)) ?? '';
  assert.equal(directive('script-src'), "script-src 'self'");
  assert.equal(directive('script-src-attr'), "script-src-attr 'none'");
  assert.equal(directive('object-src'), "object-src 'none'");
  assert.equal(directive('connect-src'), "connect-src 'self'");
  assert.equal(directive('base-uri'), "base-uri 'self'");
  assert.equal(directive('form-action'), "form-action 'self'");
});
