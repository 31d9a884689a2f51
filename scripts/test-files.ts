// The test files `npm test` runs (scripts/test.ts): every test/**/*.test.ts, the long ones first. Two files run at a
// time: a long file started last runs on alone after everything else has finished, while a long file started first
// runs beside the many short ones. Every *.test.ts is found here, so a new file is never left out; LONG_FIRST only
// orders, and a name in it that no longer exists stops `npm test` (the list would be stale).
import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Longest first, as measured in a whole `npm test` (two files at a time on a shared 2-CPU machine; seconds): each boots
 * the database in child processes or drives Chromium. The files not named here follow, sorted by path.
 */
export const LONG_FIRST = [
  'test/cli.test.ts', // ~75: a CLI child process per command, most of them booting the database
  'test/main.test.ts', // ~50: the service, npm start and npm run dev in child processes
  'test/runs/crash-embedded.test.ts', // ~40: four service processes on one data directory
  'test/runs/crash-resume.test.ts', // ~16: two worker processes
  'test/e2e/recruiter-page-form.test.ts', // ~15: Chromium
  'test/observability/replay.test.ts', // ~13
  'test/db/migrate.test.ts', // ~12
  'test/runs/multi-worker.test.ts', // ~12: two worker processes
  'test/e2e/recruiter-page.test.ts', // ~11: Chromium
  'test/e2e/recruiter-page-safety.test.ts', // ~11: Chromium
];

/** Every *.test.ts under root/dir, as paths from root with forward slashes (`test/db/migrate.test.ts`), sorted. */
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
