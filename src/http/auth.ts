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
    const key = bearerKey(request.headers.authorization);
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

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The key of an `Authorization: Bearer <key>` header. The usual spelling ("Bearer", one space, a key of printable
 * ASCII) is read by character code; any other goes through the regular expression, which decides alone.
 */
export function bearerKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (header.startsWith('Bearer ') && header.length > 7) {
    let plain = true;
    for (let i = 7; i < header.length; i++) {
      const c = header.charCodeAt(i);
      if (c <= 32 || c >= 127) {
        plain = false;
        break;
      }
    }
    if (plain) return header.slice(7);
  }
  return BEARER.exec(header)?.[1];
}

/** The authenticated caller; routes behind registerAuth always have one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new UnauthorizedError();
  return request.caller;
}
