// The compiled check for { id: uuid } params stands in for zod on valid ids only: every answer is zod's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from '../../src/http/schemas.js';
import { fastValidatorCompiler, isUuid } from '../../src/http/validation.js';

test('uuid params: the compiled check agrees with zod on every input, refusals included', () => {
  const fast = fastValidatorCompiler({ schema: IdParamsSchema, method: 'GET', url: '/x/:id', httpPart: 'params' });
  const zod = validatorCompiler({ schema: IdParamsSchema, method: 'GET', url: '/x/:id', httpPart: 'params' });
  const inputs: unknown[] = [
    { id: '8cb1048e-1234-4abc-8def-0123456789ab' },
    { id: '8CB1048E-1234-4ABC-8DEF-0123456789AB' },
    { id: '00000000-0000-0000-0000-000000000000' },
    { id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
    { id: '8cb1048e-1234-9abc-8def-0123456789ab' }, // version 9
    { id: '8cb1048e-1234-0abc-8def-0123456789ab' }, // version 0
    { id: '8cb1048e-1234-4abc-cdef-0123456789ab' }, // variant c
    { id: '8cb1048e-1234-4abc-8def-0123456789ab ' },
    { id: '8cb1048e12344abc8def0123456789ab' },
    { id: '8cb1048e-1234-4abc-8def-0123456789ag' },
    { id: '\u0000' },
    { id: "1' OR '1'='1" },
    { id: '' },
    { id: 42 },
    {},
    null,
    { id: '8cb1048e-1234-4abc-8def-0123456789ab', extra: 'stripped' },
  ];
  for (const input of inputs) {
    assert.deepEqual(JSON.parse(JSON.stringify(fast(input))), JSON.parse(JSON.stringify(zod(input))), JSON.stringify(input));
  }
  const other = z.object({ id: z.string() });
  const otherResult = fastValidatorCompiler({ schema: other, method: 'GET', url: '/y/:id', httpPart: 'params' })({ id: 'x' });
  assert.deepEqual(otherResult, { value: { id: 'x' } }, 'other schemas are zod’s');
});

test('uuid params: the character check accepts only what zod’s pattern accepts, over every single-character change', () => {
  const zodPattern = z.regexes.uuid();
  const valid = ['8cb1048e-1234-4abc-8def-0123456789ab', 'ABCDEF01-2345-1FED-BCBA-9876543210FF', '00000000-0000-8000-9000-000000000000'];
  // Every character that matters to the pattern and its neighbours, plus non-ASCII that a case fold could confuse.
  const alphabet = [...'0123456789abcdefgABCDEFG-_ /:@`{~\u0000\u0130\u212a\uff10\uff21'];
  let accepted = 0;
  for (const base of valid) {
    assert.ok(isUuid(base) && zodPattern.test(base), base);
    for (let i = 0; i < base.length; i++) {
      for (const c of alphabet) {
        const s = base.slice(0, i) + c + base.slice(i + 1);
        assert.equal(isUuid(s), zodPattern.test(s), JSON.stringify(s));
        if (isUuid(s)) accepted++;
      }
      assert.equal(isUuid(base.slice(0, i) + base.slice(i + 1)), false);
      assert.equal(isUuid(`${base.slice(0, i)}a${base.slice(i)}`), false);
    }
  }
  assert.ok(accepted > 1000, 'the check accepted many valid variants, not just refused everything');
  assert.equal(isUuid('00000000-0000-0000-0000-000000000000'), false, 'the nil UUID is left to zod');
  assert.equal(zodPattern.test('00000000-0000-0000-0000-000000000000'), true);
});
