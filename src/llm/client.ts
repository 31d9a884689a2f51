// The one configured OpenAI-compatible client: base URL, key and timeout from settings; the SDK never retries.
import OpenAI from 'openai';
import { withOpenAiErrorBodies } from './error-body.js';
import { createHttpFetch } from './http-fetch.js';
import { neverLog } from '../text/log-safe-text.js';
import type { LlmSettings } from './settings.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export function createLlmClient(settings: Pick<LlmSettings, 'baseUrl' | 'apiKey' | 'timeoutMs'> & Partial<Pick<LlmSettings, 'maxResponseBytes'>>): OpenAI {
  // A server may repeat the key in an error that reaches runs, the trail and logs: it is cut from all of them.
  neverLog(settings.apiKey);
  return new OpenAI({
    // Local OpenAI-compatible servers ignore the key, but the SDK refuses to start without one.
    apiKey: settings.apiKey ?? 'no-key-required',
    // Every option the SDK would otherwise read from process.env is given explicitly: config is read in one place.
    baseURL: settings.baseUrl ?? OPENAI_BASE_URL,
    organization: null,
    project: null,
    webhookSecret: null,
    adminAPIKey: null,
    logLevel: 'warn',
    timeout: settings.timeoutMs,
    // Retries live in exactly one layer (retry.ts). SDK retries under ours would multiply attempts
    // (4 x 3 = 12 requests), hide attempts from the ledger and ignore our deadline.
    maxRetries: 0,
    // node:http with keep-alive instead of the global fetch: the same requests for less CPU each (http-fetch.ts),
    // and a cap on the answer's size, which the server does not get to choose. Error answers in other servers' shapes
    // are given OpenAI's, so the error keeps what the server said (error-body.ts).
    fetch: withOpenAiErrorBodies(createHttpFetch({ maxResponseBytes: settings.maxResponseBytes })),
  });
}

export type LlmClient = OpenAI;
