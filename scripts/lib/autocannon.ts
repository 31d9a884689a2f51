// Runs the autocannon CLI in a child process (so the load generator does not share the server's event loop).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  total: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

const cli = createRequire(import.meta.url).resolve('autocannon');

export function autocannon(url: string, opts: { headers?: Record<string, string>; durationS: number; connections: number }): Promise<LoadResult> {
  const args = [cli, '--json', '-n', '-c', String(opts.connections), '-d', String(opts.durationS)];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err.slice(0, 500)}`));
      try {
        const r = JSON.parse(out) as AutocannonJson;
        resolve({
          requestsPerSecond: r.requests.average,
          latencyP50: r.latency.p50,
          latencyP99: r.latency.p99,
          total: r.requests.total,
          non2xx: r.non2xx,
          errors: r.errors + r.timeouts,
          statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
        });
      } catch (e) {
        reject(new Error(`autocannon output is not JSON: ${String(e)}: ${out.slice(0, 300)}`));
      }
    });
  });
}
