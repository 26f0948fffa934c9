// §10's default backoff: exponential with equal jitter, immutable, on both sides of the jitter and the cap.
import { defaultRetryDelay, exponentialBackoff, type Backoff } from '../../src/retry/backoff';

/** The least jitter, and nearly the most (see the cap's test for the very most). */
const least = () => 0;
const most = () => 0.999;
/** The largest number Math.random can give: the number just below 1. */
const largest = () => 1 - Number.EPSILON / 2;
/** The first `count` durations of a backoff. */
const durations = (backoff: Backoff, count: number): number[] =>
  Array.from({ length: count }, () => {
    const { duration } = backoff;
    backoff = backoff.next();
    return duration;
  });

describe('exponentialBackoff (contract §10)', () => {
  it('starts at the first retry: 500 to 1,000 ms by default', () => {
    expect(exponentialBackoff({ random: least })).toMatchObject({ attempt: 1, duration: 500 });
    expect(exponentialBackoff({ random: () => 0.5 }).duration).toBe(750);
    expect(exponentialBackoff({ random: most }).duration).toBeCloseTo(999.5, 9);
  });

  it('doubles for every retry: half the exponential value at least, all of it at most', () => {
    expect(durations(exponentialBackoff({ random: least }), 5)).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(durations(exponentialBackoff({ random: () => 0.5 }), 5)).toEqual([750, 1500, 3000, 6000, 12000]);
    const highest = durations(exponentialBackoff({ random: most }), 5);
    [1000, 2000, 4000, 8000, 16000].forEach((exponential, i) => {
      expect(highest[i]).toBeCloseTo(exponential * 0.9995, 6);
    });
  });

  it('caps the exponential value at maxDelay, so no wait is longer than 30 s by default', () => {
    // 1,000 * 2^5 = 32,000 is past the cap: the sixth retry and every one after it wait 15 to 30 s.
    expect(durations(exponentialBackoff({ random: least }), 8).slice(4)).toEqual([8000, 15000, 15000, 15000]);
    expect(durations(exponentialBackoff({ random: most }), 8).slice(5)).toEqual([29985, 29985, 29985]);
    // Even the largest jitter Math.random can give stays within the cap (it rounds to the cap itself).
    expect(durations(exponentialBackoff({ random: largest }), 8).slice(5)).toEqual([30000, 30000, 30000]);
  });

  it('takes its initial and largest delays from the options', () => {
    expect(durations(exponentialBackoff({ initialDelay: 100, maxDelay: 350, random: least }), 4)).toEqual([50, 100, 175, 175]);
    expect(durations(exponentialBackoff({ initialDelay: 0, random: most }), 3)).toEqual([0, 0, 0]);
    expect(durations(exponentialBackoff({ maxDelay: 0, random: most }), 3)).toEqual([0, 0, 0]);
    // A cap below the initial delay caps the first retry too.
    expect(exponentialBackoff({ initialDelay: 1000, maxDelay: 600, random: least }).duration).toBe(300);
  });

  it('is immutable: next() returns a new backoff and leaves this one as it was', () => {
    const first = exponentialBackoff({ random: () => 0.5 });
    const second = first.next();
    expect(second).not.toBe(first);
    expect(first).toMatchObject({ attempt: 1, duration: 750 });
    expect(second).toMatchObject({ attempt: 2, duration: 1500 });
    expect(first.next()).toMatchObject({ attempt: 2, duration: 1500 });
    expect(first.next().duration).toBe(first.next().duration);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('draws its jitter once per backoff, when it is made', () => {
    const random = jest.fn(() => 0.25);
    const backoff = exponentialBackoff({ random });
    expect(random).toHaveBeenCalledTimes(1);
    expect([backoff.duration, backoff.duration]).toEqual([625, 625]);
    expect(random).toHaveBeenCalledTimes(1);
  });

  it('stays finite for large attempts, with every initial delay', () => {
    for (const initialDelay of [0, Number.MIN_VALUE, 1, 1000, Number.MAX_VALUE]) {
      let backoff = exponentialBackoff({ initialDelay, random: most });
      for (let i = 1; i < 2000; i++) backoff = backoff.next();
      expect(backoff.attempt).toBe(2000);
      expect(Number.isFinite(backoff.duration)).toBe(true);
      expect(backoff.duration).toBeLessThanOrEqual(30_000);
    }
  });

  it('refuses delays that are not finite numbers >= 0', () => {
    for (const delay of [-1, NaN, Infinity, -Infinity]) {
      expect(() => exponentialBackoff({ initialDelay: delay })).toThrow(RangeError);
      expect(() => exponentialBackoff({ maxDelay: delay })).toThrow(RangeError);
    }
    expect(() => exponentialBackoff({ maxDelay: -1 })).toThrow('exponentialBackoff: maxDelay must be a finite number >= 0, got -1');
  });
});

describe('defaultRetryDelay (contract §10)', () => {
  it('gives the delay before retry `attempt` by the default backoff', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => defaultRetryDelay(attempt, least))).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000]);
    expect(defaultRetryDelay(1, () => 0.5)).toBe(750);
    expect(defaultRetryDelay(1, most)).toBeCloseTo(999.5, 9);
    expect(defaultRetryDelay(5, most)).toBeCloseTo(15992, 6);
    expect(defaultRetryDelay(6, most)).toBeCloseTo(29985, 6);
  });

  it('agrees with exponentialBackoff() at every attempt', () => {
    let backoff = exponentialBackoff({ random: () => 0.3 });
    for (let attempt = 1; attempt <= 12; attempt++, backoff = backoff.next()) {
      expect(defaultRetryDelay(attempt, () => 0.3)).toBe(backoff.duration);
    }
  });

  it('uses Math.random by default: from half the exponential value to all of it', () => {
    for (let i = 0; i < 100; i++) {
      const delay = defaultRetryDelay(2);
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThan(2000);
    }
  });

  it('stays finite for large attempts', () => {
    for (const attempt of [31, 1024, 1025, 10_000, Number.MAX_SAFE_INTEGER]) {
      expect(defaultRetryDelay(attempt, least)).toBe(15000);
      expect(defaultRetryDelay(attempt, largest)).toBeLessThanOrEqual(30000);
    }
  });

  it('refuses an attempt that is not an integer >= 1', () => {
    for (const attempt of [0, -1, 1.5, NaN, Infinity]) {
      expect(() => defaultRetryDelay(attempt)).toThrow(RangeError);
    }
    expect(() => defaultRetryDelay(0)).toThrow('defaultRetryDelay: attempt must be an integer >= 1, got 0');
  });
});
