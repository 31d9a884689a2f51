// Command-line arguments of the eval and bench scripts: a subcommand and --name value options.

export interface Args {
  command: string | undefined;
  options: Map<string, string>;
}

export function parseArgs(argv: string[]): Args {
  const options = new Map<string, string>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split('=', 2) as [string, string | undefined];
      const next = argv[i + 1];
      if (inline !== undefined) options.set(name, inline);
      else if (next !== undefined && !next.startsWith('--')) options.set(name, (i++, next));
      else options.set(name, 'true');
    } else if (command === undefined) {
      command = a;
    } else {
      throw new Error(`unexpected argument "${a}"`);
    }
  }
  return { command, options };
}

export function numberOption(args: Args, name: string, fallback: number): number {
  const raw = args.options.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
  return n;
}

export function requiredOption(args: Args, name: string, usage: string): string {
  const v = args.options.get(name);
  if (!v || v === 'true') throw new Error(`--${name} is required\nusage: ${usage}`);
  return v;
}
