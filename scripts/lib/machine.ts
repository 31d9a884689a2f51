// One line describing the machine and revision a figure was measured on, load average included (a busy machine skews timings).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

/** The commit measured, and whether src/ differed from it (other people's edits in progress count). */
function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'migrations', 'config'], { encoding: 'utf8' }).trim();
    return dirty ? `${head} + uncommitted changes in src` : head;
  } catch {
    return 'no git';
  }
}

export function machineLine(): string {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return `machine: ${os.availableParallelism()} CPUs (${cpuModel()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load average ${load}, ${new Date().toISOString()}, revision ${revision()}`;
}
