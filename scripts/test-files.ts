// The test files `npm test` runs, one a line: every test/**/*.test.ts, the long ones first. node --test starts files in
// the order given, two at a time: a long file started last runs on alone after everything else has finished, while a
// long file started first runs beside the many short ones. Every *.test.ts is found here, so a new file is never left
// out; LONG_FIRST only orders, and a name in it that no longer exists stops `npm test` (the list would be stale).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Longest first, as measured under `npm test` (two files at a time on a 2-CPU machine, seconds): each of these
 * boots PGlite in child processes or drives Chromium. A file not named here is sorted by path after them.
 */
export const LONG_FIRST = [
  'test/cli.test.ts', // ~95: a CLI child process per command, each booting the database
  'test/main.test.ts', // ~55: the service, npm start and npm run dev in child processes
  'test/runs/crash-embedded.test.ts', // ~50: three service processes on one data directory
  'test/e2e/recruiter-page-form.test.ts', // ~25: Chromium
  'test/runs/crash-resume.test.ts', // ~20: two worker processes
  'test/db/migrate.test.ts', // ~19
  'test/e2e/recruiter-page.test.ts', // ~13: Chromium
  'test/e2e/recruiter-page-safety.test.ts', // ~12: Chromium
];

/** Every *.test.ts under `dir`, as `dir`-relative paths with forward slashes, sorted. */
export function findTestFiles(root: string, dir = 'test'): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * `files` with the ones in `longFirst` first, in its order; throws when `longFirst` names a file not in `files` or
 * names one twice (node --test would run it twice).
 */
export function orderTestFiles(files: string[], longFirst: readonly string[] = LONG_FIRST): string[] {
  const stale = longFirst.filter((f) => !files.includes(f));
  if (stale.length > 0) throw new Error(`scripts/test-files.ts: LONG_FIRST names test files that do not exist: ${stale.join(', ')}`);
  const twice = longFirst.filter((f, i) => longFirst.indexOf(f) !== i);
  if (twice.length > 0) throw new Error(`scripts/test-files.ts: LONG_FIRST names a file twice: ${twice.join(', ')}`);
  return [...longFirst, ...files.filter((f) => !longFirst.includes(f))];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    const files = orderTestFiles(findTestFiles(root));
    if (files.length === 0) throw new Error('scripts/test-files.ts: no test/**/*.test.ts found');
    process.stdout.write(`${files.join('\n')}\n`);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
}
