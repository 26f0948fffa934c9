// §10's default backoff: exponential with equal jitter, as an immutable value (after cockatiel's Backoff).

/** A backoff: how long to wait before one retry, and the backoff for the retry after it. */
export interface Backoff {
  /** The retry this backoff is for: 1 for the first retry. */
  readonly attempt: number;
  /** The milliseconds to wait before this retry. */
  readonly duration: number;
  /** The backoff for the next retry. This one does not change, so it can be kept and shared. */
  next(): Backoff;
}

/** Options of {@link exponentialBackoff}. */
export interface ExponentialBackoffOptions {
  /**
   * The exponential value of the first retry, doubled for every retry after it. A finite number >= 0.
   * @default 1000
   */
  initialDelay?: number;
  /**
   * The largest exponential value, so the longest wait. A finite number >= 0.
   * @default 30000
   */
  maxDelay?: number;
  /**
   * The source of jitter: a number in [0, 1) on each call. Pass a constant to test exact durations.
   * @default Math.random
   */
  random?: () => number;
}

/**
 * An exponential backoff with equal jitter, starting at the first retry.
 *
 * Retry `n` waits `half + random() * half`, where `half` is half of
 * `min(maxDelay, initialDelay * 2^(n - 1))`: never less than half the exponential value, never more than
 * all of it, so never more than `maxDelay`. The jitter spreads the retries of clients that were
 * throttled at the same moment, so that they do not all come back at once; the fixed half keeps each of
 * them from retrying almost at once, which is what a server that said "not so fast" wants.
 *
 * A backoff is immutable: `next()` returns a new one and leaves this one as it was. Each backoff draws
 * its jitter once, when it is made.
 *
 * ## Example
 *
 * ```ts
 * const first = exponentialBackoff(); // first.duration: 500 to 1,000 ms
 * const second = first.next(); // 1,000 to 2,000 ms; first.duration has not changed
 * ```
 *
 * @param options The initial and largest delays, and the jitter's source of randomness.
 * @return The backoff for the first retry.
 */
export function exponentialBackoff(options: ExponentialBackoffOptions = {}): Backoff {
  const { initialDelay = 1000, maxDelay = 30000, random = Math.random } = options;
  for (const [name, value] of [
    ['initialDelay', initialDelay],
    ['maxDelay', maxDelay],
  ] as const) {
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`exponentialBackoff: ${name} must be a finite number >= 0, got ${value}`);
  }
  const backoff = (attempt: number): Backoff =>
    Object.freeze({
      attempt,
      duration: equalJitter(attempt, initialDelay, maxDelay, random),
      next: () => backoff(attempt + 1),
    });
  return backoff(1);
}

/**
 * The delay before retry `attempt` when `retry` is given no `delay`: an {@link exponentialBackoff} with
 * its defaults, from 1,000 ms (500 to 1,000 ms with jitter), doubling, up to 30,000 ms (15,000 to
 * 30,000 ms with jitter).
 *
 * ## Example
 *
 * ```ts
 * defaultRetryDelay(1); // 500 to 1,000 ms
 * defaultRetryDelay(3); // 2,000 to 4,000 ms
 * defaultRetryDelay(10); // 15,000 to 30,000 ms
 * ```
 *
 * @param attempt The retry to wait for: 1 for the first retry. An integer >= 1.
 * @param random The source of jitter: a number in [0, 1) on each call.
 * @return The milliseconds to wait before that retry.
 */
export function defaultRetryDelay(attempt: number, random: () => number = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`defaultRetryDelay: attempt must be an integer >= 1, got ${attempt}`);
  return equalJitter(attempt, 1000, 30000, random);
}

/** Equal jitter: half the capped exponential value, plus a random share of the other half. */
function equalJitter(attempt: number, initialDelay: number, maxDelay: number, random: () => number): number {
  // 2^1023 is the largest power of two a number holds: beyond it 2 ** n is Infinity, and with an
  // initialDelay of 0 the product would be NaN. Capped, the product stays a number and min() bounds it.
  const exponential = Math.min(maxDelay, initialDelay * 2 ** Math.min(attempt - 1, 1023));
  const half = exponential / 2;
  return half + random() * half;
}
