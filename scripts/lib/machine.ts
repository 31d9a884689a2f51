// One line describing the machine a figure was measured on, load average included (a busy machine skews timings).
import { readFileSync } from 'node:fs';
import os from 'node:os';

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  } catch {
    return os.cpus()[0]?.model ?? 'unknown';
  }
}

export function machineLine(): string {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  return `machine: ${os.availableParallelism()} CPUs (${cpuModel()}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}, load average ${load}, ${new Date().toISOString()}`;
}
