// README's configuration table against ENV_SCHEMA: every variable the service reads is there, with the bounds and the
// default the schema enforces, and the table names no service variable the schema lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { z } from 'zod';
import { ENV_SCHEMA, loadConfig } from '../../src/config.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** Read by Node or glibc, not by src/config.ts; the table says so in their rows. */
const NOT_THE_SERVICE = new Set(['MALLOC_MMAP_THRESHOLD_', 'NODE_OPTIONS']);

interface Row {
  names: string[];
  meaning: string;
  accepted: string;
  defaults: string;
}

function configurationRows(): Row[] {
  const section = README.split(/^## /m).find((s) => s.startsWith('Configuration'));
  assert.ok(section, 'README has a Configuration section');
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const cells = l.slice(1, -1).split(/ \| /).map((c) => c.trim());
      assert.equal(cells.length, 4, `four cells: ${l}`);
      const names = [...cells[0]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!);
      return { names, meaning: cells[1]!, accepted: cells[2]!, defaults: cells[3]! };
    });
}

/** The schema of one variable without its default/optional wrappers, and a number's without its text check (a pipe). */
function inner(name: string): z.ZodType & { minValue?: number | null; maxValue?: number | null; options?: readonly string[] } {
  let s = ENV_SCHEMA.shape[name as keyof typeof ENV_SCHEMA.shape] as unknown as { unwrap?: () => unknown; def: { type: string; out?: unknown } };
  for (;;) {
    if ((s.def.type === 'default' || s.def.type === 'optional') && s.unwrap) s = s.unwrap() as typeof s;
    else if (s.def.type === 'pipe' && s.def.out) s = s.def.out as typeof s;
    else break;
  }
  return s as unknown as ReturnType<typeof inner>;
}

test('the table lists every variable of ENV_SCHEMA, and no service variable the schema lacks', () => {
  const documented = configurationRows().flatMap((r) => r.names);
  const schema = Object.keys(ENV_SCHEMA.shape);
  assert.deepEqual(schema.filter((n) => !documented.includes(n)), [], 'variables the service reads that the table omits');
  assert.deepEqual(documented.filter((n) => !schema.includes(n) && !NOT_THE_SERVICE.has(n)), [], 'variables the service does not read');
  assert.equal(new Set(documented).size, documented.length, 'each variable in one row');
});

test('each documented bound and default is the one the schema enforces', () => {
  const defaults = loadConfig({}) as unknown as Record<string, unknown>;
  let checked = 0;
  for (const row of configurationRows()) {
    const names = row.names.filter((n) => n in ENV_SCHEMA.shape);
    if (names.length === 0) continue;
    // Bounds, in the order of the names: `min`..`max` each.
    const numeric = names.filter((n) => inner(n).def.type === 'number');
    let ranges = [...row.accepted.matchAll(/`(\d+)`\.\.`(\d+)`/g)].map((m) => [Number(m[1]), Number(m[2])]);
    if (ranges.length === 1 && / each$/.test(row.accepted)) ranges = numeric.map(() => ranges[0]!);
    if (numeric.length) {
      assert.equal(ranges.length, numeric.length, `${names.join(', ')}: one range per numeric variable in "${row.accepted}"`);
      numeric.forEach((n, i) => {
        assert.deepEqual(ranges[i], [inner(n).minValue, inner(n).maxValue], `${n}: documented bounds`);
        checked++;
      });
    }
    // Enum values: every one the schema accepts is named in the row.
    for (const n of names.filter((v) => inner(v).def.type === 'enum')) {
      for (const option of inner(n).options ?? []) {
        assert.ok(row.meaning.includes(`\`${option}\``) || row.accepted.includes(`\`${option}\``), `${n}: option ${option} documented`);
      }
      checked++;
    }
    // Defaults, in the order of the names, for variables that have a plain one.
    const given = [...row.defaults.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    names.forEach((n, i) => {
      const value = defaults[n];
      if (typeof value !== 'string' && typeof value !== 'number') return;
      assert.equal(given[i], String(value), `${n}: documented default in "${row.defaults}"`);
      checked++;
    });
  }
  assert.ok(checked > 40, `checked ${checked} bounds, options and defaults`);
});
