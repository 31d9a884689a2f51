// npm run eval -- <retrieval|match> --data DIR: quality on the labelled resume-screening set, with targets.
import { parseArgs, requiredOption } from './lib/args.js';
import { loadDataset } from './lib/dataset.js';
import { evalMatch } from './lib/eval-match.js';
import { evalRetrieval } from './lib/eval-retrieval.js';

const USAGE = 'npm run eval -- <retrieval|match> --data ../shared/data/resume-screening';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const command = args.command;
  if (command !== 'retrieval' && command !== 'match') throw new Error(`unknown or missing subcommand "${command ?? ''}"\nusage: ${USAGE}`);
  const data = await loadDataset(requiredOption(args, 'data', USAGE));
  console.log(`dataset: ${data.resumes.length} resumes, ${data.roles.length} labelled roles`);
  if (command === 'retrieval') await evalRetrieval(data);
  else await evalMatch(data);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
