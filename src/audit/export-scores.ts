// The scores export for bias audits (NYC Local Law 144): one CSV row per scored shortlist entry of a role's runs.
import type { Queryable } from '../db/database.js';
import type { SubscoreName, Subscores } from '../matching/domain.js';

// Spelled out, not derived: the column order is a contract with auditors' spreadsheets.
const SUBSCORE_COLUMNS = ['hardSkills', 'domain', 'seniority', 'impact', 'logistics', 'trajectory'] as const satisfies readonly SubscoreName[];
export const EXPORT_HEADER = ['runId', 'candidateId', ...SUBSCORE_COLUMNS, 'totalScore', 'aboveMedian'] as const;

/** The median of a run's total scores: the middle value, or the mean of the two middle values. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * CSV of every scored entry of the role's runs (oldest run first, each ranked). `aboveMedian` is whether the
 * total is strictly above the median total of that run's scored entries: LL144's "scoring rate" input.
 * No names or other personal data: an auditor joins candidateId to demographic data held elsewhere.
 */
export async function exportScoresCsv(db: Queryable, roleId: string): Promise<string> {
  const r = await db.query<{ run_id: string; candidate_id: string; subscores: Subscores; total_score: number }>(
    `SELECT s.run_id, s.candidate_id, s.subscores, s.total_score
     FROM shortlist_entries s JOIN matching_runs r ON r.id = s.run_id
     WHERE r.role_id = $1 AND s.status = 'scored'
     ORDER BY r.created_at, r.id, s.total_score DESC, s.retrieval_score DESC, s.candidate_id`,
    [roleId],
  );
  const byRun = new Map<string, number[]>();
  for (const row of r.rows) byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row.total_score]);
  const medians = new Map([...byRun].map(([run, totals]) => [run, median(totals)]));
  // Every field is a UUID, an integer or a boolean: nothing needs quoting.
  const lines = r.rows.map((row) =>
    [row.run_id, row.candidate_id, ...SUBSCORE_COLUMNS.map((n) => row.subscores[n]), row.total_score, row.total_score > medians.get(row.run_id)!].join(','),
  );
  return `${[EXPORT_HEADER.join(','), ...lines].join('\n')}\n`;
}
