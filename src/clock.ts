/** Where rules that depend on time (expiry, windows, rate limits) read the time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests move by hand. */
export function fixedClock(start: Date | string): Clock & { set(to: Date | string): void; advance(ms: number): void } {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set(to) {
      current = new Date(to);
    },
    advance(ms) {
      current = new Date(current.getTime() + ms);
    },
  };
}
