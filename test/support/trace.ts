// A run's whole audit trail through the API, page after page (GET /v1/matching-runs/:id/trace is cursor-paged).
import type { FastifyInstance } from 'fastify';

export interface TraceItem {
  seq: number;
  at: string;
  kind: string;
  candidateId: string | null;
  data: Record<string, unknown>;
}

export async function readTrace<T = TraceItem>(app: FastifyInstance, runId: string, headers: Record<string, string>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `/v1/matching-runs/${runId}/trace?limit=100${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await app.inject({ url, headers });
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}: ${res.body}`);
    const page = res.json() as { runId: string; items: T[]; nextCursor: string | null };
    if (page.runId !== runId) throw new Error(`GET ${url} answered the trail of ${page.runId}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}
