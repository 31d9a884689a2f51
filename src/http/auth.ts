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
  // Callback-style: a key verified moments ago (the polling case) costs no promise and no database read.
  app.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.authorization;
    const key = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    if (!key) return done(new UnauthorizedError());
    const recent = keys.verifiedRecently(key);
    if (recent) {
      request.caller = recent;
      return done();
    }
    keys.verify(key).then(
      (caller) => {
        if (!caller) return done(new UnauthorizedError('The API key is unknown or revoked.'));
        request.caller = caller;
        done();
      },
      (err: Error) => done(err),
    );
  });
}

/** The authenticated caller; routes behind registerAuth always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new UnauthorizedError();
  return request.caller;
}
