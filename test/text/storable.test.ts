// Text of unknown origin made storable: no NUL, no lone surrogate, paired surrogates (emoji) kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefixUnits, storableJson, storableJsonText, storableText } from '../../src/text/storable.js';

test('NUL characters and lone surrogates become U+FFFD; an emoji, a surrogate pair, is kept', () => {
  assert.equal(storableText('a\u0000b \ud83d c \udc00 d 😀'), 'a\ufffdb \ufffd c \ufffd d 😀');
  const clean = 'nothing to do 😀';
  assert.equal(storableText(clean), clean);
});

test('every string of a JSON value is made storable, keys included; a value needing nothing is returned as it is', () => {
  const value = { ok: ['x', 1, null, { deep: 'y' }], bad: ['\u0000'], 'k\ud800': 'v' };
  const out = storableJson(value);
  assert.deepEqual(out, { ok: ['x', 1, null, { deep: 'y' }], bad: ['\ufffd'], 'k\ufffd': 'v' });
  assert.equal(out.ok, value.ok, 'an unchanged subtree is the same object');
  const untouched = { a: [1, 'b'] };
  assert.equal(storableJson(untouched), untouched);
  // A "__proto__" key, as JSON.parse makes it an own key, stays a key: nothing becomes a prototype.
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "x": "\\u0000"}') as Record<string, unknown>;
  const cleaned = storableJson(parsed);
  assert.equal(Object.getPrototypeOf(cleaned), Object.prototype);
  assert.equal((cleaned as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(cleaned), ['__proto__', 'x']);
});

test('a prefix never ends inside a surrogate pair', () => {
  assert.equal(prefixUnits('ab😀c', 3), 'ab');
  assert.equal(prefixUnits('ab😀c', 4), 'ab😀');
  assert.equal(prefixUnits('abc', 10), 'abc');
});

test('JSON text for a jsonb parameter: NUL and lone surrogates written as U+FFFD, escaped backslashes left as text', () => {
  const value = { a: 'x\u0000y', b: '\ud83d', c: 'emoji 😀 kept', d: '\\u0000 is text', e: ['\\\u0000'] };
  const json = storableJsonText(value);
  assert.deepEqual(JSON.parse(json), { a: 'x\ufffdy', b: '\ufffd', c: 'emoji 😀 kept', d: '\\u0000 is text', e: ['\\\ufffd'] });
  assert.equal(storableJsonText({ plain: 'text' }), '{"plain":"text"}');
});
