// Figures and their presentation: percentiles, rank metrics, aligned tables and target lines.

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const mean = (values: number[]) => (values.length ? values.reduce((s, v) => s + v, 0) / values.length : NaN);

/** Ranks are 1-based; null means "not found" (rank infinity). */
export function rankMetrics(ranks: Array<number | null>, ks: number[]): { mrr: number; recall: Map<number, number> } {
  const mrr = mean(ranks.map((r) => (r === null ? 0 : 1 / r)));
  const recall = new Map(ks.map((k) => [k, mean(ranks.map((r) => (r !== null && r <= k ? 1 : 0)))]));
  return { mrr, recall };
}

export function table(header: string[], rows: Array<Array<string | number>>): string {
  const cells = [header, ...rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))];
  const widths = header.map((_, j) => Math.max(...cells.map((r) => r[j]!.length)));
  const line = (r: string[]) => r.map((c, j) => (j === 0 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function fmt(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(digits);
}

export interface Target {
  name: string;
  value: number;
  op: '>=' | '<=';
  target: number;
  unit?: string;
}

const met = (t: Target) => (t.op === '>=' ? t.value >= t.target : t.value <= t.target);

/** Prints each target with its measured value and MET/MISSED; returns the number missed. */
export function reportTargets(targets: Target[]): number {
  console.log('\ntargets:');
  for (const t of targets) {
    const unit = t.unit ?? '';
    console.log(`  ${met(t) ? 'MET   ' : 'MISSED'}  ${t.name}: ${fmt(t.value)}${unit} (target ${t.op} ${fmt(t.target)}${unit})`);
  }
  return targets.filter((t) => !met(t)).length;
}

export function heading(text: string): void {
  console.log(`\n== ${text} ==`);
}
