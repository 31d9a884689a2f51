// The tool contract: frozen allow-list, OpenAI tool definitions, and the argument validator's rejections.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { createToolRegistry, defineTool, validateToolArguments } from '../../src/llm/tools.js';

const weather = defineTool({
  name: 'get_current_weather',
  description: 'Get the current weather in a given location.',
  parameters: z.object({
    location: z.string().describe('The city and state, e.g. San Francisco, CA'),
    unit: z.enum(['celsius', 'fahrenheit']).optional(),
  }),
  handler: ({ location, unit }) => ({ location, temp: 72, unit: unit ?? 'fahrenheit' }),
  timeoutMs: 1_000,
  maxAttempts: 3,
});

test('valid arguments pass and come back typed', () => {
  assert.deepEqual(validateToolArguments(weather, '{"location": "Boston, MA", "unit": "celsius"}'), {
    ok: true,
    args: { location: 'Boston, MA', unit: 'celsius' },
  });
  assert.deepEqual(validateToolArguments(weather, '{"location": "Boston"}'), { ok: true, args: { location: 'Boston' } });
});

const rejections: Array<[string, string, RegExp]> = [
  ['missing required key', '{"unit": "celsius"}', /missing required key "location"/],
  ['wrong type', '{"location": 42}', /"location": .*expected string/],
  ['value outside the enum', '{"location": "Boston", "unit": "kelvin"}', /"unit" must be one of "celsius", "fahrenheit"/],
  ['unknown key', '{"location": "Boston", "shell": "rm -rf /"}', /unknown key\(s\) "shell"/],
  ['unparsable JSON', '{"location": "Boston", ', /not valid JSON/],
  ['an array instead of an object', '["Boston"]', /must be a JSON object/],
  ['a prototype key', '{"location": "Boston", "__proto__": {"admin": true}}', /forbidden key "__proto__"/],
];
for (const [what, raw, message] of rejections) {
  test(`the validator rejects ${what}`, () => {
    const r = validateToolArguments(weather, raw);
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.error, message);
  });
}

test('toolDefinitions are OpenAI function tools whose schema is closed and lists required keys', () => {
  const registry = createToolRegistry([weather]);
  const [def] = registry.toolDefinitions();
  assert.equal(def?.type, 'function');
  assert.equal(def?.function.name, 'get_current_weather');
  assert.equal(def?.function.description, 'Get the current weather in a given location.');
  assert.deepEqual(def?.function.parameters, {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['location'],
    additionalProperties: false,
  });
});

test('the registry is a frozen allow-list', () => {
  const registry = createToolRegistry([weather]);
  assert.ok(Object.isFrozen(registry));
  assert.ok(Object.isFrozen(weather));
  assert.equal(registry.find('get_current_weather'), weather);
  assert.equal(registry.find('delete_everything'), undefined);
  assert.equal(registry.find('toString'), undefined, 'no inherited names');
  assert.equal(registry.find('__proto__'), undefined);
  assert.throws(() => {
    (registry as { find: unknown }).find = () => weather;
  }, TypeError);
  // Mutating a returned definition does not change what the next caller gets.
  registry.toolDefinitions()[0]!.function.name = 'evil';
  assert.equal(registry.toolDefinitions()[0]?.function.name, 'get_current_weather');
});

test('duplicate or malformed tool names and nonsense caps are refused at definition time', () => {
  assert.throws(() => createToolRegistry([weather, weather]), /duplicate/);
  const base = { description: 'x', parameters: z.object({}), handler: () => null, timeoutMs: 10, maxAttempts: 1 };
  assert.throws(() => defineTool({ ...base, name: 'has space' }), TypeError);
  assert.throws(() => defineTool({ ...base, name: 'ok', maxAttempts: 0 }), TypeError);
  assert.throws(() => defineTool({ ...base, name: 'ok', timeoutMs: 0 }), TypeError);
});

test('arguments that are neither a string nor an object (null, nothing, a number, a list) are an invalid-arguments result, not a TypeError', () => {
  for (const raw of [null, undefined, 42, ['Boston']]) {
    const r = validateToolArguments(weather, raw);
    assert.equal(r.ok, false, JSON.stringify(raw));
    assert.match(r.ok ? '' : r.error, /arguments must be a string holding a JSON object/);
  }
});

test('arguments sent as the object itself (llama.cpp --tool-args-object) are read as its JSON, through the same schema', () => {
  assert.deepEqual(validateToolArguments(weather, { location: 'Boston' }), { ok: true, args: { location: 'Boston' } });
  const unknown = validateToolArguments(weather, { location: 'Boston', admin: true });
  assert.equal(unknown.ok, false, 'unknown keys are still refused');
  const deep = validateToolArguments(weather, { location: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } } });
  assert.equal(deep.ok, false, 'the depth limit still holds');
});
