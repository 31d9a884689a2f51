// How a test starts one of the service's TypeScript entry points (src/main.ts, src/cli.ts) in a child process.

/**
 * tsx, and V8's --liftoff-only when the test itself runs with it (npm test: see scripts/test.ts): a child's embedded
 * database lives as briefly as a test's, and is spared the same background optimisation of its WebAssembly.
 */
export const TS_NODE_ARGS: readonly string[] = [...(process.execArgv.includes('--liftoff-only') ? ['--liftoff-only'] : []), '--import', 'tsx'];
