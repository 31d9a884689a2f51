// Shared setup for the model-layer tests: a fake provider, the real openai client and a chat caller wired to both.
import type { LimitFunction } from 'p-limit';
import { createChatCaller } from '../../src/llm/chat.js';
import { createLlmClient } from '../../src/llm/client.js';
import { createMemoryLedger, type LedgerSink } from '../../src/llm/ledger.js';
import { loadModelRegistry } from '../../src/llm/model-registry.js';
import { parseLlmSettings, type LlmSettings, type LlmSettingsInput } from '../../src/llm/settings.js';
import { startFakeLlmServer } from '../support/fake-llm-server.js';

const fake = { model: 'fake-chat', temperature: 0.2 };

export async function setupLlm(opts: { settings?: Partial<LlmSettingsInput>; limiter?: LimitFunction; ledger?: LedgerSink; now?: () => number } = {}) {
  const server = await startFakeLlmServer();
  let settings: LlmSettings = parseLlmSettings({
    baseUrl: server.url,
    apiKey: 'test-key',
    timeoutMs: 2_000,
    maxRetries: 2,
    retryBaseMs: 5,
    retryMaxMs: 1_000,
    agents: { queryExpander: fake, reranker: fake, scorer: { model: 'fake-chat', temperature: 0 }, reflector: fake },
    embeddingModel: 'fake-embed',
    ...opts.settings,
  });
  const registry = loadModelRegistry();
  const memory = createMemoryLedger();
  const client = createLlmClient(settings);
  const caller = createChatCaller({ client, registry, settings: () => settings, ledger: opts.ledger ?? memory, limiter: opts.limiter, now: opts.now });
  return {
    server,
    registry,
    ledger: memory,
    client,
    caller,
    settings: () => settings,
    setSettings(next: Partial<LlmSettingsInput>) {
      settings = parseLlmSettings({ ...settings, ...next });
    },
    close: () => server.close(),
  };
}

export type LlmHarness = Awaited<ReturnType<typeof setupLlm>>;

export const ORG = 'org_test';
