// The service as it ships, for a benchmark: `npm run build`, then `node dist/main.js` in a child process with a data
// directory on disk, driven over HTTP only; its memory and CPU are read from /proc (Linux).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CandidateInput } from '../../src/candidates/candidate-schemas.js';
import type { Run } from '../../src/runs/run-schemas.js';
import { benchDatabase, INGEST_BATCH, SCRIPT_API_KEY, SCRIPT_SERVICE_ENV } from './runtime.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MB = 1024 * 1024;

/** Compiles src/ to dist/ (tsconfig.build.json), so that the bench measures the current sources from a clean clone. */
export function buildDist(): void {
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`npm run build (tsc -p tsconfig.build.json) failed with status ${res.status}`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The allocator setting the Dockerfile ships with (docs/operations.md, Memory): the service is measured as it runs there. */
const SHIPPED_ENV: Record<string, string> = { MALLOC_MMAP_THRESHOLD_: '1048576' };

/** The same defaults as openRuntime() (the service's own limits out of the measurement, warnings only), as shipped. */
export const SERVICE_DEFAULTS: Record<string, string> = { PROCESS_ROLE: 'all', ...SHIPPED_ENV, ...SCRIPT_SERVICE_ENV };

export interface ProcMemory {
  /** Resident set now, and its high-water mark since the process started (VmRSS, VmHWM). */
  rss: number;
  hwm: number;
  /** Resident anonymous memory (heaps, WebAssembly memory, buffers) and resident file pages (code, mapped files). */
  anon: number;
  file: number;
}

/** Per-process and per-thread CPU seconds; the main thread's id is the process id. */
export interface ProcCpu {
  totalS: number;
  threads: Map<number, number>;
}

const TICKS = 100; // sysconf(_SC_CLK_TCK) on Linux

export function readMemory(pid: number): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM'), anon: kb('RssAnon'), file: kb('RssFile') };
}

function cpuSecondsOf(statPath: string): number {
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th fields of the line.
  const stat = readFileSync(statPath, 'utf8');
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / TICKS;
}

export function readCpu(pid: number): ProcCpu {
  const threads = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      threads.set(Number(tid), cpuSecondsOf(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return { totalS: cpuSecondsOf(`/proc/${pid}/stat`), threads };
}

export interface MemoryBreakdown {
  /** PGlite's WebAssembly memory: the resident part of the read-write mapping inside V8's multi-GB wasm reservation. */
  wasm: number;
  /** glibc malloc: the main heap ([heap]) and the per-thread arenas (64 MB-aligned heaps); ArrayBuffer backing stores, V8 compiler zones, wasm module data. */
  malloc: number;
  /** Other anonymous memory: the V8 heaps of both threads, JIT and wasm code, stacks. */
  otherAnon: number;
  /** File-backed: the node binary and shared libraries. */
  file: number;
}

interface Mapping {
  start: bigint;
  end: bigint;
  perm: string;
  name: string;
  rss: number;
}

const ARENA = 64n * 1024n * 1024n;
const GB4 = 4n * 1024n * 1024n * 1024n;

/** Classifies a process's resident memory from /proc/<pid>/smaps (heuristics on the shape of the mappings, Linux x64). */
export function memoryBreakdown(pid: number): MemoryBreakdown {
  const maps: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), perm: head[3]!, name: head[4]!.trim(), rss: 0 });
    else if (line.startsWith('Rss:')) maps.at(-1)!.rss = Number(/(\d+)/.exec(line)![1]) * 1024;
  }
  maps.sort((a, b) => (a.start < b.start ? -1 : 1));
  const out: MemoryBreakdown = { wasm: 0, malloc: 0, otherAnon: 0, file: 0 };
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    const size = m.end - m.start;
    if (m.name.startsWith('/')) out.file += m.rss;
    else if (m.name === '[heap]') out.malloc += m.rss;
    else if (m.name) out.otherAnon += m.rss;
    else if (m.perm === 'rw-p' && next && !next.name && next.perm === '---p' && next.start === m.end && size + (next.end - next.start) >= GB4) out.wasm += m.rss;
    else if (m.perm === 'rw-p' && m.start % ARENA === 0n && (size === ARENA || (next && next.perm === '---p' && next.start === m.end && next.end - m.start === ARENA))) out.malloc += m.rss;
    else out.otherAnon += m.rss;
  });
  return out;
}

/** The main thread's V8 heap and external memory, from the service's Prometheus metrics (prom-client's defaults). */
export async function mainHeap(svc: { url: string }): Promise<{ heapTotal: number; heapUsed: number; newSpace: number; oldSpace: number; external: number } | null> {
  const text = await fetch(`${svc.url}/metrics`).then((r) => (r.ok ? r.text() : ''), () => '');
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const heapTotal = metric('nodejs_heap_size_total_bytes');
  if (!Number.isFinite(heapTotal)) return null;
  return {
    heapTotal,
    heapUsed: metric('nodejs_heap_size_used_bytes'),
    newSpace: metric('nodejs_heap_space_size_total_bytes\\{space="new"\\}'),
    oldSpace: metric('nodejs_heap_space_size_total_bytes\\{space="old"\\}'),
    external: metric('nodejs_external_memory_bytes'),
  };
}

export interface CpuReport {
  wallMs: number;
  /** Process CPU (all threads) over the wall clock. */
  processShare: number;
  /** The main (JS, HTTP, worker) thread's CPU over the wall clock. */
  mainShare: number;
  /** The busiest other thread's CPU over the wall clock: the embedded database thread, which runs PGlite. */
  busiestOtherShare: number;
}

export function cpuSince(pid: number, mark: { at: number; cpu: ProcCpu }): CpuReport {
  const now = readCpu(pid);
  const wallMs = performance.now() - mark.at;
  const delta = (tid: number) => (now.threads.get(tid) ?? 0) - (mark.cpu.threads.get(tid) ?? 0);
  const others = [...now.threads.keys()].filter((tid) => tid !== pid).map(delta);
  return {
    wallMs,
    processShare: ((now.totalS - mark.cpu.totalS) * 1000) / wallMs,
    mainShare: (delta(pid) * 1000) / wallMs,
    busiestOtherShare: (Math.max(0, ...others) * 1000) / wallMs,
  };
}

export function cpuRows(r: CpuReport): Array<[string, number | string]> {
  return [
    ['main thread CPU / wall (JS: HTTP, worker, pg client)', r.mainShare],
    ['busiest other thread CPU / wall (the database thread)', r.busiestOtherShare],
    ['process CPU / wall (all threads)', r.processShare],
  ];
}

/** Samples a process's RSS at an interval and keeps the peak. */
export function rssSampler(pid: number, everyMs = 50) {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, readMemory(pid).rss);
    } catch {
      // The process is gone; the last peak stands.
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    reset() {
      peak = 0;
      sample();
    },
    stop(): number {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

export interface ServiceProcess {
  pid: number;
  url: string;
  auth: { authorization: string };
  child: ChildProcess;
  /** SIGTERM, wait for a graceful exit (SIGKILL after a while), remove the data directory. */
  stop(): Promise<number | null>;
}

/**
 * Starts `node dist/main.js` (build it first with buildDist) on a fresh temporary data directory and a free port,
 * and waits for /readyz. `nodeArgs` go before the entry (e.g. V8 flags to try).
 */
export async function startServiceProcess(env: Record<string, string>, opts: { nodeArgs?: string[]; readyTimeoutMs?: number } = {}): Promise<ServiceProcess> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'tm-bench-'));
  const postgres = await benchDatabase();
  const port = await freePort();
  const childEnv: Record<string, string> = {
    // Only what a process needs from its environment: nothing of the caller's configuration leaks in.
    ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
    ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...SERVICE_DEFAULTS,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: path.join(dataDir, 'data'),
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...env,
  };
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'dist/main.js'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (d: Buffer) => {
    tail = (tail + d.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', (d: Buffer) => {
    keep(d);
    process.stderr.write(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const cleanup = async () => {
    await rm(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(killer);
    await cleanup();
    return code;
  };
  try {
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 120_000);
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail}`);
      const ready = await fetch(`${url}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error(`the service was not ready after ${opts.readyTimeoutMs ?? 120_000} ms:\n${tail}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    await cleanup();
    throw err;
  }
  return { pid: child.pid!, url, auth: { authorization: `Bearer ${SCRIPT_API_KEY}` }, child, stop };
}

async function call(svc: ServiceProcess, method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${svc.url}${url}`, {
    method,
    headers: { ...svc.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** POST /v1/candidates in batches. */
export async function ingestHttp(svc: ServiceProcess, inputs: CandidateInput[], batch = INGEST_BATCH): Promise<void> {
  for (let i = 0; i < inputs.length; i += batch) {
    const res = await call(svc, 'POST', '/v1/candidates', { candidates: inputs.slice(i, i + batch) });
    if (res.status !== 200) throw new Error(`POST /v1/candidates answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
}

/** POST /v1/matching-runs; returns the run id. */
export async function startRunHttp(svc: ServiceProcess, body: Record<string, unknown>): Promise<string> {
  const res = await call(svc, 'POST', '/v1/matching-runs', body);
  if (res.status !== 202) throw new Error(`POST /v1/matching-runs answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Polls GET /v1/matching-runs/:id as the API asks a client to (docs/api.md): with If-None-Match (a 304 costs one
 * indexed read of the run's version), and again after the answer's Retry-After (pollMs when it carries none), until
 * every run has finished; returns the finished runs.
 */
export async function waitForRunsHttp(svc: ServiceProcess, ids: string[], opts: { timeoutMs?: number; pollMs?: number } = {}): Promise<Map<string, Run>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  const pollMs = opts.pollMs ?? 100;
  const done = new Map<string, Run>();
  const etags = new Map<string, string>();
  const nextAt = new Map(ids.map((id) => [id, 0]));
  for (;;) {
    const now = Date.now();
    await Promise.all(
      ids
        .filter((id) => !done.has(id) && nextAt.get(id)! <= now)
        .map(async (id) => {
          const etag = etags.get(id);
          const res = await call(svc, 'GET', `/v1/matching-runs/${id}`, undefined, etag ? { 'if-none-match': etag } : {});
          const retryAfter = Number(res.headers.get('retry-after'));
          nextAt.set(id, Date.now() + (retryAfter > 0 ? retryAfter * 1000 : pollMs));
          if (res.status === 304) return;
          if (res.status !== 200) throw new Error(`GET /v1/matching-runs/${id} answered ${res.status}: ${await res.text()}`);
          const run = (await res.json()) as Run;
          const next = res.headers.get('etag');
          if (next) etags.set(id, next);
          if (FINISHED.has(run.status)) done.set(id, run);
        }),
    );
    if (done.size === ids.length) return done;
    if (Date.now() > deadline) throw new Error(`${ids.length - done.size} run(s) still unfinished after the timeout`);
    const soonest = Math.min(...ids.filter((id) => !done.has(id)).map((id) => nextAt.get(id)!));
    await new Promise((r) => setTimeout(r, Math.max(10, soonest - Date.now())));
  }
}

export const mb = (bytes: number) => bytes / MB;
