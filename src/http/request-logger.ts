// The request logger (request.log): a child of the service's logger, created only when something logs through it.
// fastify's default makes a pino child per request (bindings serialized, redaction applied) even when nothing is
// logged, which at LOG_LEVEL=warn is the case for every successful request. A line that is logged carries the same
// bindings (reqId) as before: the child is made, with the same arguments, on the first enabled call.
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Methods = Record<Level, (...args: unknown[]) => void>;

interface PinoLike extends FastifyBaseLogger {
  isLevelEnabled?(level: string): boolean;
}

class LazyRequestLogger {
  #parent: PinoLike;
  #bindings: Bindings;
  #opts: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: PinoLike, bindings: Bindings, opts: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  /** The pino child, made on first use. */
  get logger(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#opts));
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  #enabled(level: Level): boolean {
    if (this.#child) return true;
    const parent = this.#parent;
    return typeof parent.isLevelEnabled === 'function' ? parent.isLevelEnabled(level) : true;
  }

  /** Logs through the child (made now if this is its first line), only when the level is enabled. */
  #log(level: Level, args: unknown[]): void {
    if (this.#enabled(level)) (this.logger as unknown as Methods)[level](...args);
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: LevelWithSilent | string): boolean {
    const target = this.#child ?? this.#parent;
    return (target as PinoLike).isLevelEnabled?.(level) ?? true;
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, opts);
  }

  bindings(): Bindings {
    return (this.logger as FastifyBaseLogger & { bindings(): Bindings }).bindings();
  }
}

/**
 * A lazy child, unless the route asks for its own level or serializers (then the child is made at once, as fastify
 * would).
 */
function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  return new LazyRequestLogger(logger, bindings, opts) as unknown as FastifyBaseLogger;
}

// The query parameters the API reads; any other's value is logged as [REDACTED]: a client that puts its key in the
// query string ("?api_key=...", refused 401) must not find it in the logs.
const LOGGED_QUERY_PARAMETERS = new Set(['limit', 'cursor', 'status', 'after', 'from', 'to', 'groupBy']);

/** The request's URL as a log line carries it: the values of query parameters the API does not read redacted. */
export function loggedUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq < 0 || LOGGED_QUERY_PARAMETERS.has(name) ? pair : `${name}=[REDACTED]`;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** A request and a reply in a log line, as fastify's own logger writes them (its lib/logger-pino.js). */
const requestSerializers = {
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: loggedUrl(request.url),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};

/**
 * The childLoggerFactory of an app that gives fastify no logger of its own (src/app.ts says why): every request's
 * logger is a lazy child of `logger`, with fastify's serializers for the request and reply its own lines carry.
 */
export function requestLoggerFactory(logger: FastifyBaseLogger) {
  const parent = logger.child({}, { serializers: requestSerializers });
  return (_fastifyLogger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger =>
    lazyChildLoggerFactory(parent, bindings, opts);
}
