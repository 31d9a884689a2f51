// Where the embedded database's thread (embedded-thread.ts) starts from. Compiled (dist/), from the .js file next to
// this one. Under tsx (npm start, npm test, the benchmarks), this module is .ts source too, and the thread's entry is
// compiled here, once per process, with the esbuild that tsx itself runs on: three small files bundled into one
// module, handed to the Worker as a data: URL, its packages imported from where this process resolves them.
//
// The thread used to register tsx's hooks itself and import the .ts entry: that costs every database started ~0.4
// CPU-seconds (tsx's loader in the thread, and the thread of its own that tsx's hooks run on) and ~0.2 s of wall
// clock; measured on 2 CPUs, a migrated test database from its dump in 1.50-1.65 CPU-seconds instead of 1.89-2.00
// (docs/benchmarks.md, twenty-sixth session). The service starts one database; `npm test` ~170.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The part of esbuild's API used here (tsx's dependency, not the service's: resolved through tsx). */
interface Esbuild {
  buildSync(options: {
    entryPoints: string[];
    bundle: true;
    write: false;
    format: 'esm';
    platform: 'node';
    target: string;
    packages: 'external';
    logLevel: 'silent';
  }): { outputFiles: Array<{ text: string }> };
}

let compiled: URL | undefined;

/** The URL a Worker starts the database thread from. */
export function threadEntry(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./embedded-thread.js', import.meta.url);
  compiled ??= compileThread();
  return compiled;
}

function compileThread(): URL {
  const entry = new URL('./embedded-thread.ts', import.meta.url);
  const esbuild = createRequire(fileURLToPath(import.meta.resolve('tsx/esm/api')))('esbuild') as Esbuild;
  const [output] = esbuild.buildSync({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node.split('.')[0]}`,
    packages: 'external',
    logLevel: 'silent',
  }).outputFiles;
  if (!output) throw new Error('thread-entry: esbuild wrote no output for embedded-thread.ts');
  // A data: URL has no node_modules to look in: each package the bundle imports is named by the file it resolves to.
  const source = output.text.replace(/(\bfrom\s*|\bimport\s*\(?\s*)"([^"]+)"/g, (whole, lead: string, specifier: string) =>
    specifier.startsWith('node:') ? whole : `${lead}${JSON.stringify(import.meta.resolve(specifier))}`,
  );
  // Named in stack traces by the entry it was bundled from, not by its data: URL (the whole module, base64-encoded).
  const named = `${source}\n//# sourceURL=${entry.href}?bundled\n`;
  return new URL(`data:text/javascript;base64,${Buffer.from(named).toString('base64')}`);
}
