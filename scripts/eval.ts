// npm run eval -- <retrieval|match|fulltext> --data DIR: quality on the labelled resume-screening set, with targets.
import { machineLine } from './lib/machine.js';
import { assertKnownOptions, parseArgs, requiredOption, wantsHelp } from './lib/args.js';
import { loadDataset } from './lib/dataset.js';
import { evalFulltext } from './lib/eval-fulltext.js';
import { evalMatch } from './lib/eval-match.js';
import { evalRetrieval } from './lib/eval-retrieval.js';

const USAGE = 'npm run eval -- <retrieval|match|fulltext> --data ../shared/data/resume-screening';

async function main(): Promise<void> {
  if (wantsHelp(process.argv.slice(2))) return void console.log(`usage: ${USAGE}`);
  const args = parseArgs(process.argv.slice(2));
  assertKnownOptions(args, ['data'], USAGE);
  const command = args.command;
  if (command !== 'retrieval' && command !== 'match' && command !== 'fulltext') throw new Error(`unknown or missing subcommand "${command ?? ''}"\nusage: ${USAGE}`);
  console.log(machineLine());
  const data = await loadDataset(requiredOption(args, 'data', USAGE));
  console.log(`dataset: ${data.resumes.length} resumes, ${data.roles.length} labelled roles`);
  if (command === 'retrieval') await evalRetrieval(data);
  else if (command === 'match') await evalMatch(data);
  // A diagnostic behind the retrieval figures: which full-text changes would lift the fused ranking.
  else await evalFulltext(data);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
