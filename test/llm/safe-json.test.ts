// Safe JSON parsing of untrusted text: prototype keys, size and depth bounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeJsonParse } from '../../src/llm/safe-json.js';

test('plain JSON parses', () => {
  assert.deepEqual(safeJsonParse('{"a": [1, {"b": "c"}]}'), { ok: true, value: { a: [1, { b: 'c' }] } });
});

test('__proto__, constructor and prototype keys are rejected by default, at any depth', () => {
  for (const text of [
    '{"__proto__": {"polluted": true}}',
    '{"a": {"b": [{"__proto__": {"polluted": true}}]}}',
    '{"constructor": {"prototype": {"polluted": true}}}',
    '{"x": {"prototype": 1}}',
  ]) {
    const r = safeJsonParse(text);
    assert.equal(r.ok, false, text);
    assert.match(r.ok ? '' : r.error, /forbidden key/);
  }
});

test('strip mode drops the keys and keeps the rest; merging the result pollutes nothing', () => {
  const r = safeJsonParse('{"__proto__": {"polluted": true}, "keep": 1, "nested": {"constructor": 2, "ok": true}}', { forbiddenKeys: 'strip' });
  assert.ok(r.ok);
  assert.deepEqual(r.value, { keep: 1, nested: { ok: true } });
  const merged = Object.assign({}, r.value as object);
  assert.equal((merged as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.hasOwn(r.value as object, '__proto__'), false);
});

test('a plain JSON.parse would have let __proto__ through (the hazard this guards against)', () => {
  const raw = JSON.parse('{"__proto__": {"polluted": true}}') as object;
  assert.equal(Object.hasOwn(raw, '__proto__'), true);
  assert.equal(Object.getPrototypeOf(Object.assign({}, raw)).polluted, true, 'Object.assign follows the own __proto__ key');
});

test('size and depth are bounded before parsing', () => {
  assert.equal(safeJsonParse('"' + 'x'.repeat(100) + '"', { maxChars: 50 }).ok, false);
  const deep = '['.repeat(100) + ']'.repeat(100);
  const r = safeJsonParse(deep);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /nested deeper/);
  // Brackets inside strings do not count as nesting.
  assert.equal(safeJsonParse(JSON.stringify({ s: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' })).ok, true);
});

test('invalid JSON is an error result, never a throw', () => {
  const r = safeJsonParse('{queries: [rust,}');
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.error, /invalid JSON/);
});

test("a parse error says what was wrong without quoting the text, which can be a model's answer about a person", () => {
  for (const text of ['Jane Doe led payments', '{"rationale": Jane Doe led payments}', '["Jane Doe led payments",]', '{"a": 1} Jane Doe']) {
    const r = safeJsonParse(text);
    assert.equal(r.ok, false);
    const error = r.ok ? '' : r.error;
    assert.match(error, /^invalid JSON: \S/, error);
    assert.doesNotMatch(error, /Jane|Doe|payments/, error);
  }
});
