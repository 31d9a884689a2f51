// Child-process entry: the scripted fake model server, kept off the measured process's event loop; talks over IPC.
import { startFakeLlmServer } from '../../test/support/fake-llm-server.js';
import { scriptedAgents } from './fake-agents.js';
import type { ChildMessage, ParentMessage } from './fake-model.js';

const latencyMs = Number(process.env.FAKE_LATENCY_MS ?? 200);
const jitterMs = Number(process.env.FAKE_JITTER_MS ?? 0);
const server = await startFakeLlmServer({ latencyMs: 0 });
const script = scriptedAgents({ latencyMs, jitterMs });
server.setHandler(script.handler);

const send = (m: ChildMessage) => process.send?.(m);
process.on('message', (m: ParentMessage) => {
  if (m.type === 'collect') {
    // Epoch milliseconds, so the parent can compare them with its own clock and the database's.
    const intervals = script.intervals.map((i) => ({ ...i, start: performance.timeOrigin + i.start, end: performance.timeOrigin + i.end }));
    send({ type: 'collected', intervals, unknown: script.unknown, maxInFlight: server.maxInFlight });
  } else if (m.type === 'reset') {
    script.intervals.length = 0;
    send({ type: 'reset-done' });
  } else if (m.type === 'close') {
    void server.close().then(() => process.exit(0));
  }
});
send({ type: 'ready', url: server.url });
