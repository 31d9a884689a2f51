// npm run bench [-- <ingest|retrieval|polling|pipeline|concurrent|heuristic> [--count N ...]]: speed figures with targets.
import { assertKnownOptions, numberOption, parseArgs, wantsHelp, type Args } from './lib/args.js';
import { benchConcurrent } from './lib/bench-concurrent.js';
import { benchHeuristic } from './lib/bench-heuristic.js';
import { benchIngest } from './lib/bench-ingest.js';
import { benchPipeline } from './lib/bench-pipeline.js';
import { benchPolling } from './lib/bench-polling.js';
import { benchRetrieval } from './lib/bench-retrieval.js';
import { machineLine } from './lib/machine.js';

type Bench = (args: Args) => Promise<void>;

/** The options each benchmark takes (numbers): any other is refused. */
const OPTIONS: Record<string, readonly string[]> = {
  ingest: ['count'],
  retrieval: ['count', 'queries'],
  polling: ['duration', 'rounds'],
  pipeline: ['count', 'latency'],
  concurrent: ['runs', 'count', 'latency', 'jitter'],
  heuristic: ['runs', 'count'],
};
const USAGE = `npm run bench [-- <${Object.keys(OPTIONS).join('|')}> [--option N ...]]\n${Object.entries(OPTIONS)
  .map(([name, options]) => `  ${name.padEnd(11)}${options.map((o) => `--${o} N`).join(' ')}`)
  .join('\n')}\nWith no benchmark named, all of them run, one after another (about 12 minutes).`;

// None needs the labelled dataset: every input is generated, so `npm run bench` with no argument runs them all.
const BENCHES: Record<string, Bench> = {
  ingest: (a) => benchIngest({ count: numberOption(a, 'count', 5000) }),
  retrieval: (a) => benchRetrieval({ count: numberOption(a, 'count', 20_000), queries: numberOption(a, 'queries', 100) }),
  polling: (a) => benchPolling({ durationS: numberOption(a, 'duration', 3), rounds: numberOption(a, 'rounds', 5) }),
  pipeline: (a) => benchPipeline({ candidates: numberOption(a, 'count', 2000), latencyMs: numberOption(a, 'latency', 200), jitterMs: 20 }),
  // BENCH_NODE_ARGS: node flags for the service process (space-separated); BENCH_SERVICE_ENV: extra NAME=value pairs
  // for its environment. To try V8 or malloc settings without a code change.
  concurrent: (a) =>
    benchConcurrent({
      runs: numberOption(a, 'runs', 20),
      candidates: numberOption(a, 'count', 2000),
      latencyMs: numberOption(a, 'latency', 200),
      jitterMs: numberOption(a, 'jitter', 10),
      cap: 32,
      ...(process.env.BENCH_NODE_ARGS ? { nodeArgs: process.env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean) } : {}),
      ...(process.env.BENCH_SERVICE_ENV ? { serviceEnv: serviceEnv(process.env.BENCH_SERVICE_ENV) } : {}),
    }),
  heuristic: (a) => benchHeuristic({ runs: numberOption(a, 'runs', 20), candidates: numberOption(a, 'count', 2000) }),
};

/** `NAME=value` pairs, space-separated; a value may hold '=' itself (a DATABASE_URL's `?host=`). */
function serviceEnv(pairs: string): Record<string, string> {
  return Object.fromEntries(
    pairs
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => {
        const at = kv.indexOf('=');
        if (at <= 0) throw new Error(`BENCH_SERVICE_ENV: "${kv}" is not NAME=value`);
        return [kv.slice(0, at), kv.slice(at + 1)];
      }),
  );
}

async function main(): Promise<void> {
  if (wantsHelp(process.argv.slice(2))) return void console.log(`usage: ${USAGE}`);
  const args = parseArgs(process.argv.slice(2));
  const names = args.command ? [args.command] : Object.keys(BENCHES);
  for (const name of names) if (!BENCHES[name]) throw new Error(`unknown benchmark "${name}"; one of: ${Object.keys(BENCHES).join(', ')}`);
  assertKnownOptions(args, [...new Set(names.flatMap((name) => OPTIONS[name] ?? []))], USAGE);
  console.log(machineLine());
  for (const name of names) await BENCHES[name]!(args);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
