// Polling throughput of GET /v1/matching-runs/:id (200 and 304) against a bare fastify route sending the same bytes.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { autocannon, type LoadResult } from './autocannon.js';
import { ingest, openRuntime, startRun, waitForRuns } from './runtime.js';
import { heading, reportTargets, table } from './stats.js';
import { syntheticCandidates, syntheticRole } from './synthetic.js';

const CONNECTIONS = 10;

export async function benchPolling(opts: { durationS: number }): Promise<void> {
  const rt = await openRuntime();
  const bare = Fastify({ logger: false });
  try {
    heading(`polling: autocannon, ${CONNECTIONS} connections, ${opts.durationS} s per target, loopback`);
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

    // The baseline: the same bytes and cache headers from a route with no auth, no database, no schema, no hooks.
    bare.get('/run', (_req, reply) => {
      reply.header('content-type', 'application/json; charset=utf-8').header('etag', etag).header('cache-control', 'private, no-cache');
      return reply.send(body);
    });
    bare.get('/healthz', (_req, reply) => reply.header('content-type', 'application/json; charset=utf-8').send('{"status":"ok"}'));
    bare.get('/not-modified', (_req, reply) => reply.code(304).header('etag', etag).header('cache-control', 'private, no-cache').send());
    await bare.listen({ port: 0, host: '127.0.0.1' });
    await rt.app!.listen({ port: 0, host: '127.0.0.1' });
    const base = (server: typeof bare) => `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;

    const load = async (target: string, headers: Record<string, string> = {}): Promise<LoadResult> => {
      await autocannon(target, { headers, durationS: 1, connections: CONNECTIONS }); // warm-up
      return autocannon(target, { headers, durationS: opts.durationS, connections: CONNECTIONS });
    };
    const service200 = await load(`${base(rt.app as unknown as typeof bare)}${url}`, rt.auth);
    const bare200 = await load(`${base(bare)}/run`);
    const service304 = await load(`${base(rt.app as unknown as typeof bare)}${url}`, { ...rt.auth, 'if-none-match': etag });
    const bare304 = await load(`${base(bare)}/not-modified`);
    // A control: the service's own stack (helmet, cors, hooks, zod serializer) on a route with no auth and no database.
    const serviceHealth = await load(`${base(rt.app as unknown as typeof bare)}/healthz`);
    const bareHealth = await load(`${base(bare)}/healthz`);

    const row = (name: string, r: LoadResult) => [name, r.requestsPerSecond, r.latencyP50, r.latencyP99, JSON.stringify(r.statusCodes), r.errors];
    console.log(table(['target', 'req/s', 'p50 ms', 'p99 ms', 'status codes', 'errors'], [
      row('service GET run (200, 15 entries)', service200),
      row('bare route, same bytes (200)', bare200),
      row('service GET run, If-None-Match (304)', service304),
      row('bare route (304)', bare304),
      row('control: service GET /healthz (no auth, no database)', serviceHealth),
      row('control: bare route, same bytes', bareHealth),
    ]));
    console.log(`control ratio (framework and plugins alone): ${(serviceHealth.requestsPerSecond / bareHealth.requestsPerSecond).toFixed(3)}`);
    const unexpected = (r: LoadResult, code: string) => Object.entries(r.statusCodes).some(([k, n]) => k !== code && n > 0) || r.errors > 0;
    if (unexpected(service200, '200') || unexpected(service304, '304')) console.log('WARNING: the service answered something other than the expected status; ratios are not meaningful');
    reportTargets([
      { name: 'service 200 / bare 200', value: service200.requestsPerSecond / bare200.requestsPerSecond, op: '>=', target: 0.5 },
      { name: 'service 304 / bare 304', value: service304.requestsPerSecond / bare304.requestsPerSecond, op: '>=', target: 0.8 },
    ]);
  } finally {
    await bare.close();
    await rt.close();
  }
}
