// Pretty logs only where pino-pretty exists: the production image installs no dev dependencies, and a TTY there
// (docker run -t) must still boot, with JSON lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { loggerOptions } from '../../src/logger.js';

test('pretty on a TTY when pino-pretty is installed', () => {
  const opts = loggerOptions('info', { pretty: true, isInstalled: () => true });
  assert.equal((opts.transport as { target: string } | undefined)?.target, 'pino-pretty');
});

test('without pino-pretty (npm ci --omit=dev) a TTY gets JSON lines, and pino starts', () => {
  const opts = loggerOptions('info', { pretty: true, isInstalled: () => false });
  assert.equal(opts.transport, undefined);
  assert.doesNotThrow(() => pino(opts, pino.destination({ dest: '/dev/null', sync: true })));
});

test('not a TTY: JSON lines, whatever is installed', () => {
  assert.equal(loggerOptions('info', { pretty: false, isInstalled: () => true }).transport, undefined);
});
