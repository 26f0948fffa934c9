// A limiter shared by many processes, that each start waits for (the `limiter` option): the ramp,
// the throttles and the failure kinds stay the run's own, and the bucket is the limiter's. No RxJS.
import { expected } from './expected.js';
import type { RateLimitState } from './rate-limit.js';

/**
 * What the `limiter` option takes: a bucket that many runs draw from, in many processes or on many
 * machines (rate-limiter-flexible's `RateLimiterRedis`, through {@link fromRateLimiterFlexible}).
 * Every try asks it for a start before its factory is called.
 */
export interface StartLimiter {
  /**
   * Asks for one start. Answers, or resolves to, `0` when the start may go now (the token is taken),
   * or how many ms to wait before asking again. A throw or a rejection fails the try with that reason.
   */
  take(): number | PromiseLike<number>;
  /**
   * Told the budgets that each answer announcing one announced (several at once, or one), malformed
   * ones left out: read by the `rateLimit` option's reader, or by `readRateLimits()` without it. A
   * limiter that takes its rate from the server's policy uses them
   * ({@link FromRateLimiterFlexibleOptions.rateFromServer}). A throw goes where errors with nowhere to
   * go do (RxJS's `config.onUnhandledError`).
   */
  announced?(budgets: readonly RateLimitState[]): void;
}

/** What {@link fromRateLimiterFlexible} needs of a rate-limiter-flexible limiter: its `consume`. */
export interface RateLimiterFlexibleLike {
  /** Takes `points` (1 here) from `key`'s budget; rejects with how long to wait (`msBeforeNext`) when it is spent. */
  consume(key: string | number, points?: number): PromiseLike<unknown>;
  /** The points a window of the bucket grants: what `rateFromServer` sets. */
  points?: number;
  /** The length of the bucket's window, in seconds. */
  readonly duration?: number;
}

/** Options of {@link fromRateLimiterFlexible}. */
export interface FromRateLimiterFlexibleOptions {
  /**
   * How long after the bucket's window resets a refused start asks again, in ms. A fixed window of
   * rate-limiter-flexible begins at its first grant, and a server's that counts the same way (express-rate-limit,
   * rate-limiter-flexible) at the first request it counts, a latency later. Asked at the very reset, the
   * bucket grants its new window's first starts while the server's old window, full, has that latency
   * still to run: a start whose way to the server is quicker than the first one's was is refused. Asking
   * a little after keeps the bucket's windows behind the server's (docs/rate-limit.md has what it
   * measured).
   *
   * @default 10
   */
  readonly afterReset?: number;
  /**
   * Whether the bucket takes its rate from the policy the server announces in the headers of the
   * tries' values or errors, with the `rateLimit` option or without it. On each answer that announces
   * a budget with its window (express-rate-limit's `RateLimit-Policy`, say), the bucket's `points`
   * become what that budget allows over the bucket's `duration`: of several budgets, the one with the
   * shortest window, and of two such the smaller (a quota per day is the announced pace's to hold, not
   * a bucket of a second's). Every process that hears the policy sets the same. Give the bucket the
   * points the workers may start before the first answer: a few, when the rate is unknown.
   *
   * @default false
   */
  readonly rateFromServer?: boolean;
}

/**
 * A {@link StartLimiter} on a rate-limiter-flexible limiter (`RateLimiterRedis`, `RateLimiterMemory`,
 * ...): each start consumes one point of `key`; a refusal's `msBeforeNext`, and `afterReset` more, is
 * the wait before asking again, and any other rejection (the store is down) fails the try.
 *
 * @example
 * ```ts
 * const bucket = new RateLimiterRedis({ storeClient: redis, points: 50, duration: 1, keyPrefix: 'api' });
 * slowStart(tasks, { limiter: fromRateLimiterFlexible(bucket, 'partner-api') });
 * ```
 * @param limiter The shared limiter.
 * @param key What the runs that share the bucket consume from: the API key they share, say.
 * @param options `afterReset` and `rateFromServer`: see {@link FromRateLimiterFlexibleOptions}.
 * @returns The limiter for the `limiter` option.
 */
export function fromRateLimiterFlexible(
  limiter: RateLimiterFlexibleLike,
  key: string | number,
  options: FromRateLimiterFlexibleOptions = {},
): StartLimiter {
  if (typeof (limiter as Partial<RateLimiterFlexibleLike> | null)?.consume !== 'function') {
    throw new TypeError(expected('limiter', 'a rate-limiter-flexible limiter (an object with `consume()`)', limiter));
  }
  // Read as unknown: a user's JavaScript may pass anything.
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) {
    throw new TypeError(expected('options', 'an object or undefined', given));
  }
  const { afterReset = 10, rateFromServer = false } = options;
  if (typeof afterReset !== 'number' || !(afterReset >= 0) || afterReset === Infinity) {
    throw new TypeError(expected('afterReset', 'a finite number of ms >= 0', afterReset));
  }
  if (typeof rateFromServer !== 'boolean') throw new TypeError(expected('rateFromServer', 'a boolean or undefined', rateFromServer));
  const { duration } = limiter;
  if (rateFromServer && !(typeof duration === 'number' && duration > 0 && typeof limiter.points === 'number')) {
    throw new TypeError(expected('limiter', 'a limiter with numeric `points` and `duration` (rateFromServer sets its points)', limiter));
  }
  const take = () =>
    Promise.resolve(limiter.consume(key, 1)).then(
      () => 0,
      (refusal: unknown) => {
        const wait = (refusal as { msBeforeNext?: unknown } | null)?.msBeforeNext;
        // A refusal says how long; anything else is the store's failure.
        if (typeof wait !== 'number' || !(wait >= 0)) throw refusal;
        return Math.max(1, Math.ceil(wait + afterReset));
      },
    );
  if (!rateFromServer) return { take };
  const seconds = duration as number;
  return {
    take,
    announced: (budgets) => {
      const policy = shortestPolicy(budgets);
      // As many starts over the bucket's window as the policy allows over its own.
      if (policy !== undefined) limiter.points = Math.max(1, Math.floor((policy.limit * seconds * 1000) / policy.window));
    },
  };
}

/** Of the budgets announced with their limit and window, the one with the shortest window; of two such, the smaller. */
function shortestPolicy(budgets: readonly RateLimitState[]): { limit: number; window: number } | undefined {
  let shortest: { limit: number; window: number } | undefined;
  for (const { limit, window } of budgets) {
    if (limit === undefined || window === undefined || window === 0) continue;
    if (shortest === undefined || window < shortest.window || (window === shortest.window && limit < shortest.limit)) {
      shortest = { limit, window };
    }
  }
  return shortest;
}
