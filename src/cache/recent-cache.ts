// A bounded in-process map whose entries go stale after a fixed time: what one process may remember of
// the shared database between two reads of it. Least recently set entries are dropped first.

export interface RecentCacheOptions<V = unknown> {
  /** How long an entry is trusted without asking the database again; 0 disables the cache. */
  ttlMs: number;
  maxEntries: number;
  /** With sizeOf: the total size kept; the least recently set entries go first when it is exceeded. */
  maxSize?: number;
  sizeOf?: (value: V) => number;
  /** A clock that measures time passed (monotonic by default: a wall clock stepped back would keep entries fresh). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  storedAt: number;
  size: number;
}

export class RecentCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #maxSize: number;
  readonly #sizeOf: (value: V) => number;
  readonly #now: () => number;
  #size = 0;

  constructor(opts: RecentCacheOptions<V>) {
    this.#ttlMs = opts.ttlMs;
    this.#maxEntries = opts.maxEntries;
    this.#maxSize = opts.maxSize ?? Infinity;
    this.#sizeOf = opts.sizeOf ?? (() => 0);
    this.#now = opts.now ?? (() => performance.now());
  }

  get enabled(): boolean {
    return this.#ttlMs > 0 && this.#maxEntries > 0;
  }

  /** The value if it was stored (or confirmed) less than ttlMs ago. */
  fresh(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#now() - entry.storedAt < this.#ttlMs) return entry.value;
    return undefined;
  }

  /** The value however old: worth revalidating with a cheaper read than the one that produced it. */
  stale(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  set(key: string, value: V): void {
    if (!this.enabled) return;
    const size = this.#sizeOf(value);
    this.delete(key);
    if (size > this.#maxSize) return;
    this.#entries.set(key, { value, storedAt: this.#now(), size });
    this.#size += size;
    while (this.#entries.size > this.#maxEntries || this.#size > this.#maxSize) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#size -= entry.size;
  }

  deleteWhere(predicate: (value: V, key: string) => boolean): void {
    for (const [key, entry] of this.#entries) if (predicate(entry.value, key)) this.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** A memoized load, and a way to drop what it remembers of one key. */
export type Memoized<V> = ((key: string) => Promise<V>) & {
  /**
   * The key's value is dropped at once, and a reload under way is not kept: the next call loads anew and waits.
   * With `only`: dropped only if it is still the value a call answered with that promise (not a newer one since).
   */
  forget(key: string, only?: Promise<V>): void;
};

/**
 * load(key), remembered per key; once older than ttlMs it is reloaded in the background while callers keep the
 * value they had (stale-while-revalidate), up to maxAgeMs old: the first call after a quiet spell, or while reloads
 * keep failing, may still get a value that old. Only a key's first load, or a value older than maxAgeMs, is waited
 * for. A failed first load is forgotten at once; a failed reload keeps the old value, and the next call after ttlMs
 * tries again. Concurrent callers share one load. At most maxKeys keys are remembered: the least recently asked for
 * is dropped first (an organisation that has not searched for a while is loaded anew when it does).
 * With `spacing`, a value also stays fresh for `spacing` times as long as its load took: a load that grows with the
 * data (seconds, on a large pool) is not repeated every ttlMs in every process (maxAgeMs still bounds the wait).
 */
export function memoizeRefreshing<V>(
  ttlMs: number,
  maxAgeMs: number,
  load: (key: string) => Promise<V>,
  /** now: a clock that measures time passed (monotonic by default, as RecentCache's). */
  opts: { maxKeys?: number; now?: () => number; spacing?: number } = {},
): Memoized<V> {
  const maxKeys = opts.maxKeys ?? Infinity;
  const now = opts.now ?? (() => performance.now());
  interface Entry {
    at: number;
    /** How long the value stays fresh: ttlMs, or longer after a slow load (opts.spacing). */
    freshFor: number;
    value: Promise<V>;
    /** The value has arrived: it can be served while a newer one loads. */
    ready: boolean;
    reloading: boolean;
  }
  const entries = new Map<string, Entry>();
  const loadInto = (key: string): Entry => {
    const entry: Entry = { at: now(), freshFor: ttlMs, value: load(key), ready: false, reloading: false };
    entry.value.then(
      () => {
        entry.ready = true;
        // Never past maxAgeMs: beyond it a value is reloaded and waited for, however long its load took.
        if (opts.spacing) entry.freshFor = Math.min(maxAgeMs, Math.max(ttlMs, opts.spacing * (now() - entry.at)));
      },
      () => entries.get(key) === entry && entries.delete(key),
    );
    return entry;
  };
  const get = (key: string): Promise<V> => {
    const cached = entries.get(key);
    if (cached) {
      // The most recently asked for goes last: eviction takes the first.
      entries.delete(key);
      entries.set(key, cached);
    }
    const age = cached ? now() - cached.at : Infinity;
    if (cached && (age < cached.freshFor || !cached.ready)) return cached.value;
    if (cached && age < maxAgeMs) {
      if (!cached.reloading) {
        cached.reloading = true;
        const next = loadInto(key);
        next.value.then(
          () => entries.get(key) === cached && entries.set(key, next),
          () => (cached.reloading = false),
        );
      }
      return cached.value;
    }
    const entry = loadInto(key);
    entries.delete(key);
    entries.set(key, entry);
    while (entries.size > maxKeys) entries.delete(entries.keys().next().value!);
    return entry.value;
  };
  // A reload under way replaces only the entry it was started for (see above), so it cannot bring the key back.
  const forget = (key: string, only?: Promise<V>) => {
    if (only === undefined || entries.get(key)?.value === only) entries.delete(key);
  };
  return Object.assign(get, { forget });
}
