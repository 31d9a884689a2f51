// A clock a test can stop at an instant of its choosing: the services read it instead of Date.now.
export interface TestClock {
  /** Epoch ms: the instant set, or real time while none is. */
  now: () => number;
  /** Stops the clock at `ms` (epoch ms); null lets it follow real time again. */
  set(ms: number | null): void;
}

export function testClock(): TestClock {
  let at: number | null = null;
  return {
    now: () => at ?? Date.now(),
    set(ms) {
      at = ms;
    },
  };
}
