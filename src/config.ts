// The one place that reads the environment: turns it into a typed, validated Config at start.
import { z } from 'zod';
import { databaseUrlProblem } from './db/database-url.js';
import { parseLlmSettings, type LlmSettings } from './llm/settings.js';

// Decimal digits only: z.coerce.number() read " " as 0 (no statement timeout, no grace, a budget of $0) and "0x50" as 80.
const int = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?\d+(?:\.0*)?$/, 'must be a whole number in decimal digits')
    .pipe(z.coerce.number<string>().int().min(min).max(max));
const decimal = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\+?(?:\d+\.?\d*|\.\d+)$/, 'must be a decimal number')
    .pipe(z.coerce.number<string>().min(min).max(max));
const list = z
  .string()
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));
// A browser sends its page's origin as the URL standard serialises it (scheme://host[:port], lower case, no default
// port, no path), and CORS compares it as a string: an entry written otherwise ("https://app.example.com/",
// "app.example.com", "https://APP.example.com", "https://app.example.com:443") would never match, silently. Schemes
// other than http(s) are origins too (capacitor://localhost, chrome-extension://<id>), and so is "null".
const isOrigin = (entry: string): boolean => {
  if (entry === '*' || entry === 'null') return true;
  try {
    const url = new URL(entry);
    return url.origin !== 'null' ? url.origin === entry : `${url.protocol}//${url.host}` === entry && url.host !== '';
  } catch {
    return false;
  }
};
const origins = list.superRefine((entries, ctx) => {
  for (const entry of entries) {
    if (!isOrigin(entry)) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is no origin a browser sends: write it as scheme://host[:port], lower case, without a path, a trailing slash or a default port (https://app.example.com), or *` });
    }
  }
});

/** Every variable the service reads, with its default and meaning (README's configuration table mirrors this). */
export const ENV_SCHEMA = z.object({
  PORT: int(0, 65535).default(3000).describe('HTTP port'),
  HOST: z.string().min(1).default('127.0.0.1').describe('HTTP listen address (the Docker image sets 0.0.0.0)'),
  // What pg takes, unix sockets included (postgres://user@/db?host=/var/run/postgresql is no URL to z.url()).
  DATABASE_URL: z
    .string()
    .superRefine((url, ctx) => {
      const problem = databaseUrlProblem(url);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional()
    .describe('PostgreSQL with pgvector; unset: the embedded PGlite'),
  DATA_DIR: z.string().min(1).default('./.data').describe('embedded database files; memory:// keeps nothing'),
  DB_POOL_MAX: int(1, 200).default(10).describe('connections in the process-wide pool'),
  CACHE_TTL_MS: int(0, 600_000)
    .default(5_000)
    .describe('how long a process trusts a verified API key or a finished run it served without re-reading; 0: always re-read'),
  DB_CONNECTION_TIMEOUT_MS: int(100, 600_000).default(10_000).describe('how long a query waits for a free pool connection'),
  DB_STATEMENT_TIMEOUT_MS: int(0, 3_600_000)
    .default(30_000)
    .describe('PostgreSQL (DATABASE_URL) only: a statement running longer is cancelled; 0: never. The embedded database cannot cancel one'),
  DB_LOCK_TIMEOUT_MS: int(0, 3_600_000)
    .default(10_000)
    .describe('PostgreSQL (DATABASE_URL) only: a statement waiting longer for a lock is cancelled; 0: never'),
  PROCESS_ROLE: z.enum(['api', 'worker', 'all']).default('all').describe('api, worker, or both in one process'),
  BOOTSTRAP_API_KEY: z
    .string()
    // A secret file's trailing newline is no part of the key; a space, a control or a non-ASCII character inside it
    // could never come back in an `Authorization: Bearer` header, and a key registered so would lock everyone out.
    .trim()
    .max(200)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it is sent as `Authorization: Bearer KEY`), such as the output of `openssl rand -base64 32`')
    .optional()
    .describe('registered for organisation "default" on first boot; any length, a warning below 20 characters'),
  LLM_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, such as http://localhost:11434/v1' })
    .optional()
    .describe('any OpenAI-compatible endpoint'),
  LLM_API_KEY: z.string().optional().describe('key for LLM_BASE_URL'),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini').describe('default chat model for every agent (must be in config/models.json)'),
  LLM_MODEL_QUERY_EXPANDER: z.string().min(1).optional().describe('model override for the query expander'),
  LLM_MODEL_RERANKER: z.string().min(1).optional().describe('model override for the reranker'),
  LLM_MODEL_SCORER: z.string().min(1).optional().describe('model override for the scorer'),
  LLM_MODEL_REFLECTOR: z.string().min(1).optional().describe('model override for the reflector'),
  LLM_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small').describe('embedding model when EMBEDDINGS=llm'),
  LLM_TIMEOUT_MS: int(1000, 600_000).default(60_000).describe('timeout of one model request'),
  LLM_MAX_RESPONSE_BYTES: int(1_048_576, 1_073_741_824)
    .default(33_554_432)
    .describe('cap on one model answer body, after decompression: a larger answer is refused, its socket closed'),
  LLM_MAX_RETRIES: int(0, 10).default(3).describe('retries of a retryable model failure (our layer only; the SDK retries none)'),
  LLM_REASK_LIMIT: int(0, 5).default(1).describe('re-asks after an invalid structured answer'),
  LLM_CONCURRENCY: int(1, 1000)
    .default(32)
    .describe('process-wide cap on model requests in flight: chat and embedding requests together (both go to LLM_BASE_URL)'),
  MODEL_REGISTRY_PATH: z.string().min(1).default('config/models.json').describe('pinned model registry'),
  MATCH_ENGINE: z.enum(['llm', 'heuristic', 'auto']).default('auto').describe('auto: llm when LLM_BASE_URL is set'),
  EMBEDDINGS: z.enum(['local', 'llm']).default('local').describe('local (deterministic, offline) or the endpoint'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level'),
  WORKER_CONCURRENCY: int(1, 100).default(4).describe('runs one worker process drives at once'),
  WORKER_POLL_MS: int(10, 60_000).default(500).describe('how often an idle worker looks for queued runs'),
  RUN_LEASE_MS: int(1000, 3_600_000).default(30_000).describe('how long a claimed run stays claimed without a heartbeat'),
  RUN_HEARTBEAT_MS: int(100, 600_000).default(10_000).describe('how often a worker renews its leases'),
  RUN_MAX_ATTEMPTS: int(1, 20).default(3).describe('claims of one run before it fails'),
  RUN_DEADLINE_MS: int(1000, 86_400_000).default(900_000).describe('wall-clock limit of one run'),
  SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000).describe('how long SIGTERM waits for in-flight steps'),
  CORS_ORIGINS: origins.default([]).describe('comma-separated origins allowed to call the API from a browser'),
  RATE_LIMIT_WRITES_PER_MINUTE: int(1, 1_000_000).default(120).describe('per API key: candidate and role writes'),
  RATE_LIMIT_RUNS_PER_MINUTE: int(1, 1_000_000).default(30).describe('per API key: matching runs started'),
  MAX_RUNS_IN_FLIGHT_PER_ORG: int(1, 10_000).default(20).describe('queued plus running runs per organisation'),
  ORG_DAILY_BUDGET_USD: decimal(0, 1_000_000).default(50).describe('model spend per organisation per UTC day'),
  TRACE_RETENTION_DAYS: int(1, 3650).default(180).describe('audit trails older than this are pruned'),
});

export type Env = z.infer<typeof ENV_SCHEMA>;
export type AgentName = 'queryExpander' | 'reranker' | 'scorer' | 'reflector';

export interface Config extends Env {
  engine: 'llm' | 'heuristic';
  agentModels: Record<AgentName, { model: string; temperature: number }>;
  /** What the model layer reads (client, retries, re-asks, agents' models, embedding model), built from the LLM_* variables. */
  llm: LlmSettings;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Why a path a variable names cannot be used, in words for a ConfigError ("no such file", "permission denied"). */
export function pathProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file, not a directory, is in the way';
  if (code === 'EISDIR') return 'a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  return (err as Error).message;
}

/** Parses the environment; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, as shells and compose files often export them; so does a value of spaces alone.
  const present = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1].trim() !== ''));
  const parsed = ENV_SCHEMA.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.MATCH_ENGINE === 'llm' && !e.LLM_BASE_URL) {
    throw new ConfigError('invalid configuration:\n  MATCH_ENGINE: "llm" needs LLM_BASE_URL');
  }
  if (e.EMBEDDINGS === 'llm' && !e.LLM_BASE_URL) {
    throw new ConfigError('invalid configuration:\n  EMBEDDINGS: "llm" needs LLM_BASE_URL');
  }
  if (e.RUN_HEARTBEAT_MS * 2 > e.RUN_LEASE_MS) {
    throw new ConfigError('invalid configuration:\n  RUN_HEARTBEAT_MS: must be at most half of RUN_LEASE_MS');
  }
  if (e.DB_LOCK_TIMEOUT_MS > 0 && e.DB_STATEMENT_TIMEOUT_MS > 0 && e.DB_LOCK_TIMEOUT_MS > e.DB_STATEMENT_TIMEOUT_MS) {
    // A lock wait is part of its statement: the statement timeout would always cancel it first.
    throw new ConfigError('invalid configuration:\n  DB_LOCK_TIMEOUT_MS: must be at most DB_STATEMENT_TIMEOUT_MS (or 0)');
  }
  const engine = e.MATCH_ENGINE === 'auto' ? (e.LLM_BASE_URL ? 'llm' : 'heuristic') : e.MATCH_ENGINE;
  const agentModels = {
    queryExpander: { model: e.LLM_MODEL_QUERY_EXPANDER ?? e.LLM_MODEL, temperature: 0.2 },
    reranker: { model: e.LLM_MODEL_RERANKER ?? e.LLM_MODEL, temperature: 0.2 },
    // Determinism matters most where numbers are produced.
    scorer: { model: e.LLM_MODEL_SCORER ?? e.LLM_MODEL, temperature: 0 },
    reflector: { model: e.LLM_MODEL_REFLECTOR ?? e.LLM_MODEL, temperature: 0.2 },
  };
  // Every value was validated above, so this parse only fills the model layer's own defaults (retry backoff).
  const llm = parseLlmSettings({
    baseUrl: e.LLM_BASE_URL,
    apiKey: e.LLM_API_KEY,
    timeoutMs: e.LLM_TIMEOUT_MS,
    maxResponseBytes: e.LLM_MAX_RESPONSE_BYTES,
    maxRetries: e.LLM_MAX_RETRIES,
    reaskLimit: e.LLM_REASK_LIMIT,
    agents: agentModels,
    embeddingModel: e.LLM_EMBEDDING_MODEL,
  });
  return { ...e, engine, agentModels, llm };
}
