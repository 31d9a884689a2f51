// Bearer-key authentication for /v1 routes: a request without a valid key never reaches a handler.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyStore, Caller } from '../auth/api-keys.js';
import { UnauthorizedError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export function registerAuth(app: FastifyInstance, keys: ApiKeyStore): void {
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new UnauthorizedError();
    const caller = await keys.verify(match[1]);
    if (!caller) throw new UnauthorizedError('The API key is unknown or revoked.');
    request.caller = caller;
  });
}

/** The authenticated caller; routes behind registerAuth always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new UnauthorizedError();
  return request.caller;
}
