// The compiled check for { id: uuid } params stands in for zod on valid ids only: every answer is zod's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParamsSchema } from '../../src/http/schemas.js';
import { fastValidatorCompiler } from '../../src/http/validation.js';

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
