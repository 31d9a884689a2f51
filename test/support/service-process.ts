// The service as it ships (src/main.ts) in a child process, on a free port: its output, its exit, its HTTP API.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ENV_SCHEMA } from '../../src/config.js';
import { TS_NODE_ARGS } from './node-args.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The environment of a child service, worker or CLI: this process's, less every variable the service reads (a
 * developer's DATABASE_URL or LLM_BASE_URL must not point a test's child at their own database or model), plus `env`.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(ENV_SCHEMA.shape)) delete inherited[name];
  return { ...inherited, ...env };
}

/**
 * What the crash tests run a service or worker with: the llm engine on the fake model server, two model calls at a
 * time, and leases short enough that a killed process's run is claimed again within seconds.
 */
export function crashTestEnv(fakeModelUrl: string): Record<string, string> {
  return {
    MATCH_ENGINE: 'llm',
    LLM_BASE_URL: fakeModelUrl,
    LLM_MODEL: 'fake-chat',
    LLM_CONCURRENCY: '2',
    RUN_LEASE_MS: '2000',
    RUN_HEARTBEAT_MS: '500',
    WORKER_POLL_MS: '100',
  };
}

export interface ServiceProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once /readyz answers 200; fails if the process exits first or after timeoutMs. */
  ready(timeoutMs?: number): Promise<void>;
  /** A JSON request with the key; the parsed body, or null for an empty one. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
}

/**
 * `prelude`: a shell command run first, by a shell that then execs the service: the service keeps the shell's pid,
 * which the prelude knows as $$ (a test can write the pid the service will have before it starts).
 */
export async function startServiceProcess(env: Record<string, string>, apiKey: string, opts: { prelude?: string } = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const argv = [process.execPath, ...TS_NODE_ARGS, 'src/main.ts'];
  const [command, ...args] = opts.prelude ? ['sh', '-c', `${opts.prelude}; exec "$@"`, 'sh', ...argv] : argv;
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: childEnv({ PORT: String(port), HOST: '127.0.0.1', BOOTSTRAP_API_KEY: apiKey, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    pid: child.pid!,
    url,
    output: () => out,
    exited,
    async ready(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (gone) throw new Error(`the service exited before it was ready:\n${out}`);
        if (await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false)) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`the service was not ready within ${timeoutMs} ms:\n${out}`);
    },
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
  };
}
