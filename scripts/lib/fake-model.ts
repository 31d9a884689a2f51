// The scripted fake model server in its own process (fake-model-child.ts), so its work is not charged to the service.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Interval } from './fake-agents.js';

export type ParentMessage = { type: 'collect' } | { type: 'reset' } | { type: 'close' };
export type ChildMessage =
  | { type: 'ready'; url: string }
  | { type: 'collected'; intervals: Interval[]; unknown: string[]; maxInFlight: number }
  | { type: 'reset-done' };

export interface FakeModel {
  url: string;
  /** Request intervals so far, in epoch milliseconds. */
  collect(): Promise<{ intervals: Interval[]; unknown: string[]; maxInFlight: number }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

function next<T extends ChildMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ChildMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: ChildMessage) => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as Extract<ChildMessage, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the fake model process exited (${code}) before "${type}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function startFakeModel(opts: { latencyMs: number; jitterMs: number }): Promise<FakeModel> {
  const entry = fileURLToPath(new URL('./fake-model-child.ts', import.meta.url));
  const child = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FAKE_LATENCY_MS: String(opts.latencyMs), FAKE_JITTER_MS: String(opts.jitterMs) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url } = await next(child, 'ready');
  return {
    url,
    async collect() {
      const reply = next(child, 'collected');
      child.send({ type: 'collect' } satisfies ParentMessage);
      const { intervals, unknown, maxInFlight } = await reply;
      return { intervals, unknown, maxInFlight };
    },
    async reset() {
      const reply = next(child, 'reset-done');
      child.send({ type: 'reset' } satisfies ParentMessage);
      await reply;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send({ type: 'close' } satisfies ParentMessage);
      await exited;
    },
  };
}
