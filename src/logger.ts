// pino options: JSON lines with a request id, pretty only on a TTY, and a redaction list for secrets and PII.
import type { LoggerOptions } from 'pino';

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

export function loggerOptions(level: string, opts: { pretty?: boolean } = {}): LoggerOptions {
  const pretty = opts.pretty ?? process.stdout.isTTY;
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true } } } : {}),
  };
}
