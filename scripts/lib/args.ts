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

/** Whether the arguments ask for help (--help, -h, help): the script prints its usage and exits 0. */
export function wantsHelp(argv: string[]): boolean {
  return argv.some((a) => a === '--help' || a === '-h') || argv[0] === 'help';
}

/** Refuses an option the command does not take: a misspelt one (--cuont) was silently ignored, its default used. */
export function assertKnownOptions(args: Args, known: readonly string[], usage: string): void {
  const unknown = [...args.options.keys()].filter((name) => !known.includes(name));
  if (unknown.length) throw new Error(`unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `--${n}`).join(', ')}\nusage: ${usage}`);
}
