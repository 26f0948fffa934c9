// The `retry` option (§10): which failures are throttles, how often a task is tried, how long to wait.
import { expected } from '../expected.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';
import type { TaskContext } from '../types.js';

/**
 * How a run treats a failure that says "not so fast" rather than "never": instead of stopping the run,
 * it drops the pace, pauses every start and tries the task again.
 */
export interface RetryOptions {
  /**
   * Whether a failure is transient. `true`: retry after the backoff; a number: retry no sooner than
   * that many ms (a server's `Retry-After`, see `retryAfter()`); `false`: the failure stops the run.
   * @default () => true (every failure is transient, as with RxJS's `retry()`)
   */
  when?: (error: unknown, context: TaskContext) => boolean | number;
  /**
   * How many times a task is tried, the first try included.
   * @default 3
   */
  maxAttempts?: number;
  /**
   * The pause in ms before retry `attempt` (1 for the first retry): a number, or a function of the
   * attempt and the error. No task at all starts during a pause.
   * @default exponential from 1,000 ms, doubling, capped at 30 s, with jitter
   */
  delay?: number | ((attempt: number, error: unknown) => number);
  /**
   * After a throttle, also start no more tasks per pause than the server served the run in the last
   * one: for servers that send only `Retry-After`, and clients that share one rate limit with no
   * coordinator. It only ever starts a task later, and before the first throttle it changes nothing.
   * How it learns is in the README, under "Throttles slow the run down instead of stopping it".
   * @default false
   */
  learnRate?: boolean;
}

/** {@link RetryOptions} after validation, with every default filled in. */
export interface ResolvedRetry {
  readonly when: ((error: unknown, context: TaskContext) => boolean | number) | undefined;
  readonly maxAttempts: number;
  readonly delay: number | ((attempt: number, error: unknown) => number) | undefined;
  readonly learnRate: boolean;
}

const retryOptionNames: ReadonlyArray<keyof RetryOptions> = ['when', 'maxAttempts', 'delay', 'learnRate'];

/**
 * Validates the `retry` option and fills in its defaults. Throws a `TypeError` for a value of the wrong
 * type and a `RangeError` for a number out of range (a `delay` longer than a timer can hold included),
 * both in the package's one message template.
 *
 * ## Example
 *
 * ```ts
 * resolveRetry({ maxAttempts: 5 }); // { when: undefined, maxAttempts: 5, delay: undefined, learnRate: false }
 * resolveRetry({ delay: -1 }); // throws a RangeError that names `retry.delay`, its rule and the -1 received
 * ```
 *
 * @param retry The `retry` option as the caller gave it, of any type.
 * @return The option with its defaults, or `undefined` when there is none (every failure stops the run).
 */
export function resolveRetry(retry: unknown): ResolvedRetry | undefined {
  if (retry === undefined) return undefined;
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry)) {
    throw new TypeError(expected('retry', 'an object or undefined', retry));
  }
  for (const key of Object.keys(retry)) {
    if (!(retryOptionNames as string[]).includes(key)) {
      throw new TypeError(`Unknown option \`retry.${key}\`: expected one of ${retryOptionNames.map((name) => `\`${name}\``).join(', ')}`);
    }
  }
  const { when, maxAttempts = 3, delay, learnRate = false } = retry as RetryOptions;
  if (when !== undefined && typeof when !== 'function') {
    throw new TypeError(expected('retry.when', 'a function or undefined', when));
  }
  const attemptsRule = 'an integer >= 1';
  if (typeof maxAttempts !== 'number') throw new TypeError(expected('retry.maxAttempts', attemptsRule, maxAttempts));
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError(expected('retry.maxAttempts', attemptsRule, maxAttempts));
  const delayRule = `a number of milliseconds from 0 to ${MAX_TIMER_DELAY}, or a function returning one`;
  if (delay !== undefined && typeof delay !== 'function') {
    if (typeof delay !== 'number') throw new TypeError(expected('retry.delay', delayRule, delay));
    if (!(delay >= 0 && delay <= MAX_TIMER_DELAY)) throw new RangeError(expected('retry.delay', delayRule, delay));
  }
  if (typeof learnRate !== 'boolean') throw new TypeError(expected('retry.learnRate', 'a boolean or undefined', learnRate));
  return { when, maxAttempts, delay, learnRate };
}
