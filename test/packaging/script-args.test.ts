// The eval and bench scripts' arguments: --help prints the usage (it started every benchmark, twelve minutes of
// them), and an option the command does not take is refused (--cuont was ignored, its default used).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertKnownOptions, parseArgs, wantsHelp } from '../../scripts/lib/args.js';

test('--help, -h or help asks for the usage; an unknown option is refused, naming it', () => {
  for (const argv of [['--help'], ['-h'], ['help'], ['ingest', '--help']]) assert.equal(wantsHelp(argv), true, argv.join(' '));
  assert.equal(wantsHelp(['ingest', '--count', '10']), false);
  const args = parseArgs(['ingest', '--cuont', '10']);
  assert.throws(() => assertKnownOptions(args, ['count'], 'USAGE'), /^Error: unknown option --cuont\nusage: USAGE$/);
  assert.doesNotThrow(() => assertKnownOptions(parseArgs(['ingest', '--count', '10']), ['count'], 'USAGE'));
});
