// The test files `npm test` runs (scripts/test.ts): every test/**/*.test.ts, the long ones first. Two files run at a
// time: a long file started last runs on alone after everything else has finished, while a long file started first
// runs beside the many short ones. Every *.test.ts is found here, so a new file is never left out; LONG_FIRST only
// orders, and a name in it that no longer exists stops `npm test` (the list would be stale).
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

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

/**
 * What would change another file's tests if it shared their process: the environment, globals, the process's
 * listeners, exit code or directory, and mocked timers or methods. A file without any of these may share a process
 * (mayShareProcess). Root-level hooks may: a group runs each of its files inside a suite of its own (processFiles), to
 * which the file's before, after, beforeEach and afterEach attach, so what one file's before hook starts is closed by
 * its after hook before the next file's tests begin.
 */
const CHANGES_THE_PROCESS =
  /process\.env(?:\.[A-Za-z_$][\w$]*|\[[^\]\n]*\])\s*(?:=(?!=)|\?\?=|\|\|=)|delete\s+process\.env|Object\.assign\(\s*process\.env|mock\.(?:timers|method)|globalThis\.[A-Za-z_$][\w$]*\s*=(?!=)|process\.(?:on|once|off|chdir|exit|exitCode|removeAllListeners)\b/m;

/**
 * Whether a test file's source lets it share a process with other files: nothing it does outlives its suite (its
 * tests and hooks set up and tear down what they use), so nothing of it is alive while another file's tests run.
 */
export function mayShareProcess(source: string): boolean {
  return !CHANGES_THE_PROCESS.test(source);
}

/** How many files share one process: each saves ~1-2 CPU-seconds of starting Node, tsx and the modules they import. */
export const FILES_PER_PROCESS = 8;

/**
 * The processes a run starts, in order, each as the files it runs one after another: every file in `longFirst` alone,
 * first (they start processes of their own or drive Chromium); then the others in the order given, a file that may not
 * share a process alone, the rest in groups of up to `perProcess`, each group where its last file stands.
 */
export function planProcesses(
  files: string[],
  mayShare: (file: string) => boolean,
  longFirst: readonly string[] = LONG_FIRST,
  perProcess = FILES_PER_PROCESS,
): string[][] {
  const plan: string[][] = files.filter((f) => longFirst.includes(f)).map((f) => [f]);
  let group: string[] = [];
  for (const file of files) {
    if (longFirst.includes(file)) continue;
    if (!mayShare(file)) {
      plan.push([file]);
      continue;
    }
    group.push(file);
    if (group.length === perProcess) {
      plan.push(group);
      group = [];
    }
  }
  if (group.length) plan.push(group);
  return plan;
}

/**
 * The file each process of a plan runs: a test file (under root), or for a group a module written in the folder
 * groupDir() gives (asked for only if the plan has a group), named after its first and last files. The module gives
 * each file a suite named after it and imports the file inside it: node:test attaches the tests and root-level hooks
 * the file declares to that suite (checked by test/packaging/test-files.test.ts), runs the suites one after another in
 * the order given, and a report names each test's file. Every file is loaded before the first test starts.
 */
export function processFiles(plan: string[][], root: string, groupDir: () => string): string[] {
  let dir: string | undefined;
  return plan.map((files, i) => {
    if (files.length === 1) return path.join(root, files[0]!);
    dir ??= groupDir();
    const name = (f: string) => path.basename(f, '.test.ts');
    const entry = path.join(dir, `${String(i).padStart(3, '0')}-${name(files[0]!)}--${name(files.at(-1)!)}.test.mjs`);
    const suites = files.map(
      (f) => `suite(${JSON.stringify(f)}, async () => {\n  await import(${JSON.stringify(pathToFileURL(path.join(root, f)).href)});\n});`,
    );
    writeFileSync(entry, [`// ${files.join(', ')}`, "import { suite } from 'node:test';", ...suites, ''].join('\n'));
    return entry;
  });
}
