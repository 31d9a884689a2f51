// package.json's dependencies and engines against what the service really loads: every installed runtime package is
// used, and every Node version engines admits can load them (the image runs dist/ with plain node, no tsx loader).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** The package a module specifier names: '@scope/name/sub' -> '@scope/name', 'name/sub' -> 'name'. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || specifier.startsWith('/')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

test('every runtime dependency is loaded by the service or run by an npm script', () => {
  const used = new Set<string>();
  const specifiers = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|import\.meta\.resolve\(\s*|require(?:\.resolve)?\(\s*)['"]([^'"]+)['"]/g;
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(specifiers)) {
      const name = packageOf(m[1]!);
      if (name) used.add(name);
    }
  }
  const scripts = Object.values(pkg.scripts).join(' ');
  const unused = Object.keys(pkg.dependencies).filter((d) => !used.has(d) && !new RegExp(`(^|[\\s/])${d}(\\s|$)`).test(scripts));
  assert.deepEqual(unused, [], 'dependencies nothing loads: installed into every image and checked against engines for nothing');
});

/** The lowest version each alternative of a range admits, for the forms package.json uses (^x.y.z, >=x.y.z). */
function lowerBounds(range: string): Array<{ major: number; minor: number; caret: boolean }> {
  return range.split('||').map((alt) => {
    const m = /^\s*(\^|>=)\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(alt);
    if (!m) throw new Error(`engines.node alternative "${alt.trim()}" is not of the form ^x.y.z or >=x.y.z`);
    return { caret: m[1] === '^', major: Number(m[2]), minor: Number(m[3]) };
  });
}

test('engines.node admits no Node version that cannot load the runtime dependencies', (t) => {
  // A CommonJS dependency that require()s an ES module loads only where require(esm) is on by default: 20.19 and
  // later on 20, 22.12 and later. The flag below turns it off, as on older releases.
  const script = `const failed = [];
    for (const d of ${JSON.stringify(Object.keys(pkg.dependencies))}) {
      try { await import(d); } catch (err) { if (err?.code === 'ERR_REQUIRE_ESM') failed.push(d); }
    }
    process.stdout.write(JSON.stringify(failed));`;
  const child = spawnSync(process.execPath, ['--no-experimental-require-module', '--input-type=module', '--eval', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (child.status !== 0 && /bad option|not allowed/i.test(child.stderr)) {
    t.skip(`this Node (${process.version}) cannot turn require(esm) off`);
    return;
  }
  assert.equal(child.status, 0, child.stderr);
  const needRequireEsm = JSON.parse(child.stdout) as string[];
  if (needRequireEsm.length === 0) return;
  for (const b of lowerBounds(pkg.engines.node)) {
    const ok = b.major === 20 ? b.caret && b.minor >= 19 : b.major === 22 ? b.minor >= 12 : b.major > 22;
    assert.ok(
      ok,
      `engines.node "${pkg.engines.node}" admits ${b.major}.${b.minor}, where ${needRequireEsm.join(', ')} cannot load ` +
        '(they require() ES modules): the service would not start there',
    );
  }
});
