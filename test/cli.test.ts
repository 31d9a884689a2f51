// The operator CLI in a child process: a bad argument is a usage error (exit 2) that changes nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestRuntime } from './support/runtime.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function cli(args: string[], dataDir: string) {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 60_000 });
}

test('prune-traces: a --days that is no whole number ("", " ", "0x1") is refused and prunes nothing', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // A run whose audit trail ended two days ago.
  const rt = await startTestRuntime({ PROCESS_ROLE: 'api', DATA_DIR: dataDir });
  try {
    const run = await rt.app!.inject({ method: 'POST', url: '/v1/matching-runs', headers: rt.auth(), payload: { role: { title: 'Go engineer', description: 'Go services' } } });
    assert.equal(run.statusCode, 202, run.body);
    await rt.db.query(
      `INSERT INTO run_trace (run_id, org_id, at, kind, data) SELECT id, org_id, now() - interval '2 days', 'decision', '{}'::jsonb FROM matching_runs WHERE id = $1`,
      [run.json().id],
    );
  } finally {
    await rt.close();
  }

  // Number() read "" and " " as 0: every trail was pruned.
  for (const days of ['', ' ', '0x1']) {
    const res = cli(['prune-traces', '--days', days], dataDir);
    assert.equal(res.status, 2, `--days ${JSON.stringify(days)}: ${res.stdout}${res.stderr}`);
    assert.match(res.stderr, /--days must be a whole number/);
    assert.equal(res.stdout, '', 'nothing was pruned');
  }
  // The trail is still there: a real retention of one day prunes it.
  const res = cli(['prune-traces', '--days', '1'], dataDir);
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, /^pruned 1 trace rows of 1 runs older than 1 days$/m);
});

test('an unknown option, a missing option value or a stray argument is a usage error (exit 2), not a stack trace', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tm-cli-'));
  try {
    const cases: Array<[string[], RegExp]> = [
      [['create-api-key', '--orgg', 'acme'], /Unknown option '--orgg'/],
      [['create-api-key', '--org'], /Option '--org <value>' argument missing/],
      [['revoke-api-key', 'tm_abc'], /Unexpected argument 'tm_abc'/],
      [['prune-traces', '--days', '-1'], /argument is ambiguous/],
    ];
    for (const [args, message] of cases) {
      const res = cli(args, dataDir);
      const what = `${args.join(' ')}: ${res.stderr}`;
      assert.equal(res.status, 2, what);
      assert.match(res.stderr, message, what);
      assert.match(res.stderr, /^usage: npm run cli/m, what);
      assert.doesNotMatch(res.stderr, /^\s+at /m, `${what}: no stack trace`);
      assert.equal(res.stdout, '');
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
