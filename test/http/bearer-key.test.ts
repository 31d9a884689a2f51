// The Authorization header is read by character code in the usual case: the key it finds is the regex's, always.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bearerKey } from '../../src/http/auth.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

test('bearer key: the same key as the pattern for every spelling, odd ones included', () => {
  const key = 'tm_abcdefghij_0123456789-_ABCDEFGHIJKLMN';
  const headers = [
    `Bearer ${key}`,
    `bearer ${key}`,
    `BEARER ${key}`,
    `Bearer  ${key}`,
    `Bearer\t${key}`,
    `Bearer ${key} `,
    `Bearer ${key}\t`,
    `Bearer ${key} extra`,
    `Bearer ${key}\u00a0`,
    `Bearer \u00a0${key}`,
    `Bearer ${key}\u2028`,
    `Bearer ${key}é`,
    `Bearer ${key}\u007f`,
    `Bearer ${key}\u0000`,
    `Bearer ${key}\n`,
    `Bearer`,
    `Bearer `,
    `Bearer  `,
    `Basic ${key}`,
    `Bearer${key}`,
    ` Bearer ${key}`,
    key,
    '',
  ];
  for (const h of headers) assert.equal(bearerKey(h), BEARER.exec(h)?.[1], JSON.stringify(h));
  assert.equal(bearerKey(undefined), undefined);
  assert.equal(bearerKey(`Bearer ${key}`), key);
});
