// npm test's runner: every test file, two processes at a time, in scripts/test-files.ts's order (long files first);
// with file arguments, those, each in its own process, in the order given. Not `node --test FILES`: Node 20 sorts the
// files it is given by path, and node:test's run() keeps the order. Reports as `node --test` does: spec on a terminal,
// else TAP.
// Files that change nothing another file's tests would see (scripts/test-files.ts, mayShareProcess: no environment,
// globals, process listeners or mocks) run up to eight to a process, one after another, each in a suite of its own
// that its root-level hooks attach to: a process of its own cost each file 1-2 CPU-seconds of starting Node, tsx and
// the modules it imports, and the suite is CPU-bound (docs/benchmarks.md, seventeenth and eighteenth sessions). The
// long files and the others run alone.
// package.json starts it with --liftoff-only, which each process inherits (below): V8 then runs WebAssembly
// with its baseline compiler only, and does not optimise PGlite's hot functions again in the background. A test's
// database lives seconds, which such optimisation never pays back: a database opened, queried 50 times and closed
// took 2.6 instead of 3.6 CPU-seconds, and the whole suite 386 s instead of 422 s (2 CPUs, docs/benchmarks.md). The
// entry points a test starts in a child process get it too (test/support/node-args.ts); the service itself, npm start
// and the benchmarks run with V8's defaults.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { findTestFiles, mayShareProcess, orderTestFiles, planProcesses, processFiles } from './test-files.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A new temporary folder for the groups' modules (processFiles), removed when the run ends. */
function groupDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-test-groups-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const given = process.argv.slice(2);
const files =
  given.length > 0
    ? given.map((f) => path.resolve(f))
    : processFiles(planProcesses(orderTestFiles(findTestFiles(ROOT)), (f) => mayShareProcess(readFileSync(path.join(ROOT, f), 'utf8'))), ROOT, groupDir);
if (files.length === 0) throw new Error('scripts/test.ts: no test/**/*.test.ts found');

// Each file's process gets this one's --liftoff-only and --import tsx (run() passes on process.execArgv).
// The timeout is a guard against a hung file, not a speed target: the longest file (the CLI's, a process per command)
// takes ~70 s alone and passed 180 s once the machine's CPUs were busy with other work.
const stream = run({ files, concurrency: 2, timeout: 300_000 });
// As `node --test` does: any failure but a todo's fails the run.
stream.on('test:fail', (data: { todo?: string | boolean }) => {
  if (data.todo === undefined || data.todo === false) process.exitCode = 1;
});
stream.compose(process.stdout.isTTY ? new spec() : tap).pipe(process.stdout);
