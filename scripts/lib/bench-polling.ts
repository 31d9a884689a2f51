// Polling throughput of GET /v1/matching-runs/:id (200 and 304) against a bare fastify route sending the same bytes.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { autocannon, type LoadResult } from './autocannon.js';
import { ingest, openRuntime, startRun, waitForRuns } from './runtime.js';
import { heading, percentile, reportTargets, table } from './stats.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

const CONNECTIONS = 10;

export async function benchPolling(opts: { durationS: number; rounds: number }): Promise<void> {
  const rt = await openRuntime();
  const bare = Fastify({ logger: false });
  try {
    heading(`polling: autocannon, ${CONNECTIONS} connections, ${opts.rounds} x ${opts.durationS} s per target, loopback`);
    await ingest(rt, syntheticCandidates(300));
    const id = await startRun(rt, { role: syntheticRole(0), maxIterations: 1, scoreLimit: 15 });
    const run = (await waitForRuns(rt, [id])).get(id)!;
    if (run.shortlist.length !== 15) throw new Error(`expected a 15-entry shortlist, got ${run.shortlist.length}`);

    const url = `/v1/matching-runs/${id}`;
    const first = await rt.app!.inject({ method: 'GET', url, headers: rt.auth });
    const body = first.rawPayload;
    const etag = String(first.headers.etag);
    const notModified = await rt.app!.inject({ method: 'GET', url, headers: { ...rt.auth, 'if-none-match': etag } });
    if (notModified.statusCode !== 304) throw new Error(`If-None-Match answered ${notModified.statusCode}`);
    console.log(`run ${run.status}, shortlist ${run.shortlist.length} entries, body ${body.length} bytes, etag ${etag}`);

    // The baseline: a route with no auth, no database, no schema and no hooks that answers the same bytes as the
    // service, headers included (security headers, CORS vary, request id of the same length, ETag, cache control).
    const replayed = (headers: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(headers).filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(k)));
    const headers200 = replayed(first.headers);
    const headers304 = replayed(notModified.headers);
    const health = await rt.app!.inject({ method: 'GET', url: '/healthz' });
    const headersHealth = replayed(health.headers);
    const withRequestId = (h: Record<string, unknown>) => ({ ...h, 'x-request-id': randomUUID() });
    bare.get('/run', (_req, reply) => reply.headers(withRequestId(headers200)).send(body));
    bare.get('/not-modified', (_req, reply) => reply.code(304).headers(withRequestId(headers304)).send());
    bare.get('/healthz', (_req, reply) => reply.headers(withRequestId(headersHealth)).send(health.rawPayload));
    await bare.listen({ port: 0, host: '127.0.0.1' });
    await rt.app!.listen({ port: 0, host: '127.0.0.1' });
    const base = (server: typeof bare) => `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;

    // Service and baseline alternate, round after round, so a change in the machine's load hits both alike;
    // each ratio is the median of the rounds' ratios. Both sides get the same requests, headers included: the
    // baseline parses the Authorization and If-None-Match it ignores, as the service parses the ones it reads.
    const service = base(rt.app as unknown as typeof bare);
    const pairs = {
      '200': { headers: rt.auth, service: `${service}${url}`, bare: `${base(bare)}/run` },
      '304': { headers: { ...rt.auth, 'if-none-match': etag }, service: `${service}${url}`, bare: `${base(bare)}/not-modified` },
      // A control: the service's own stack (security headers, hooks, the zod response serializer) on a route with no auth and no database.
      healthz: { headers: {}, service: `${service}/healthz`, bare: `${base(bare)}/healthz` },
    };
    const results: Record<string, { service: LoadResult[]; bare: LoadResult[] }> = {};
    for (const [name, pair] of Object.entries(pairs)) {
      results[name] = { service: [], bare: [] };
      for (const side of ['service', 'bare'] as const) await autocannon(pair[side], { headers: pair.headers, durationS: 1, connections: CONNECTIONS }); // warm-up
      for (let round = 0; round < opts.rounds; round++) {
        for (const side of ['service', 'bare'] as const) {
          results[name]![side].push(await autocannon(pair[side], { headers: pair.headers, durationS: opts.durationS, connections: CONNECTIONS }));
        }
      }
    }
    const ratio = (name: string) => median(results[name]!.service.map((r, i) => r.requestsPerSecond / results[name]!.bare[i]!.requestsPerSecond));
    const row = (label: string, rs: LoadResult[]) => [
      label,
      median(rs.map((r) => r.requestsPerSecond)),
      median(rs.map((r) => r.latencyP50)),
      median(rs.map((r) => r.latencyP99)),
      JSON.stringify(sumCodes(rs)),
      rs.reduce((n, r) => n + r.errors, 0),
    ];
    console.log(`${opts.rounds} alternating rounds of ${opts.durationS} s per target; medians`);
    console.log(table(['target', 'req/s', 'p50 ms', 'p99 ms', 'status codes', 'errors'], [
      row('service GET run (200, 15 entries)', results['200']!.service),
      row('bare route, same bytes (200)', results['200']!.bare),
      row('service GET run, If-None-Match (304)', results['304']!.service),
      row('bare route, same bytes (304)', results['304']!.bare),
      row('control: service GET /healthz (no auth, no database)', results.healthz!.service),
      row('control: bare route, same bytes', results.healthz!.bare),
    ]));
    console.log(`per-round ratios 200: ${roundRatios(results['200']!)}; 304: ${roundRatios(results['304']!)}; control: ${roundRatios(results.healthz!)}`);
    const unexpected = (rs: LoadResult[], code: string) => rs.some((r) => Object.entries(r.statusCodes).some(([k, n]) => k !== code && n > 0) || r.errors > 0);
    if (unexpected(results['200']!.service, '200') || unexpected(results['304']!.service, '304')) {
      console.log('WARNING: the service answered something other than the expected status; ratios are not meaningful');
    }
    reportTargets([
      { name: 'service 200 / bare 200', value: ratio('200'), op: '>=', target: 0.5 },
      { name: 'service 304 / bare 304', value: ratio('304'), op: '>=', target: 0.8 },
    ]);
  } finally {
    await bare.close();
    await rt.close();
  }
}

const median = (xs: number[]) => percentile(xs, 50);

function sumCodes(rs: LoadResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rs) for (const [code, n] of Object.entries(r.statusCodes)) out[code] = (out[code] ?? 0) + n;
  return out;
}

function roundRatios(pair: { service: LoadResult[]; bare: LoadResult[] }): string {
  return pair.service.map((r, i) => (r.requestsPerSecond / pair.bare[i]!.requestsPerSecond).toFixed(2)).join(' ');
}
