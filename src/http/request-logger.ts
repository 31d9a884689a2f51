// The request logger (request.log) is created only when something logs through it.
// fastify's default makes a pino child per request (bindings serialized, redaction applied) even when nothing is
// logged, which at LOG_LEVEL=warn is the case for every successful request. A line that is logged carries the same
// bindings (reqId) as before: the child is made, with the same arguments, on the first enabled call.
import type { FastifyBaseLogger } from 'fastify';
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
 * fastify's childLoggerFactory: a lazy child, unless the route asks for its own level or serializers (then the
 * child is made at once, as fastify would).
 */
export function lazyChildLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions): FastifyBaseLogger {
  if (opts.level !== undefined || opts.serializers !== undefined) return logger.child(bindings, opts);
  return new LazyRequestLogger(logger, bindings, opts) as unknown as FastifyBaseLogger;
}
