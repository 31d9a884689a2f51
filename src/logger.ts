// pino options: JSON lines with a request id, pretty only on a TTY, a redaction list for secrets and PII, and
// errors serialized without the personal data a database or model server error carries.
import { createRequire } from 'node:module';
import type { LoggerOptions } from 'pino';
import { serializeError } from './log-errors.js';

const require = createRequire(import.meta.url);

/** pino-pretty is a dev dependency: a production install (the Docker image's `npm ci --omit=dev`) has none. */
function installed(name: string): boolean {
  try {
    require.resolve(name);
    return true;
  } catch {
    return false;
  }
}

// Paths that may carry a key or personal data; resume text is never logged, but if a body is, these go.
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  'key',
  '*.apiKey',
  'email',
  'phone',
  'name',
  'resume',
  '*.email',
  '*.phone',
  '*.resume',
  'candidates[*].email',
  'candidates[*].phone',
  'candidates[*].name',
  'candidates[*].resume',
];

/**
 * Pretty lines on a TTY when pino-pretty is installed; JSON otherwise. Without the check, `docker run -t` (stdout a
 * TTY, no dev dependencies) failed at boot with "unable to determine transport target for pino-pretty".
 */
export function loggerOptions(level: string, opts: { pretty?: boolean; isInstalled?: (name: string) => boolean } = {}): LoggerOptions {
  const pretty = (opts.pretty ?? process.stdout.isTTY) && (opts.isInstalled ?? installed)('pino-pretty');
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    // An error is logged from an allow-list of its fields, words scrubbed (src/log-errors.ts), never whole.
    serializers: { err: serializeError },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  };
}
