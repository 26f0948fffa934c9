// The `retry` option (§10, §14): what kind each failure is, how often a task is tried, how long to wait.
import { expected } from '../expected.js';
import type { FailureVerdict } from './failure-kind.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';
import type { TaskContext } from '../types.js';

/**
 * How a run treats a failure that is not for good: a throttle drops the pace, pauses every
 * start and tries the task again; a transient failure tries the task again alone, after its backoff; an
 * item failure fails that task and the run goes on; a fatal one stops the run.
 */
export interface RetryOptions {
  /**
   * What kind of failure a try's error is: `'throttle'`, `'transient'`, `'item'` or `'fatal'`, or
   * `{ kind: 'throttle' | 'transient', retryAfter }` with the server's pushback in ms. As before the
   * kinds, `true` is a throttle, a number a throttle to wait out that many ms, and `false` fatal.
   * `undefined` leaves it to the default, `classifyFailure()`, so a function that answers only what it
   * knows keeps the rest of the default.
   * @default classifyFailure (429 and 503 with `Retry-After` throttle; no answer, 502, 503 and 504 are transient; the rest is fatal)
   */
  when?: (error: unknown, context: TaskContext) => FailureVerdict;
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
   * How it learns is in the guide shipped with the package, docs/failures.md.
   * @default false
   */
  learnRate?: boolean;
  /**
   * How many item failures in a row, with no success between them, stop the run as a fatal failure
   * would: a systemic error (every record answers 422 after a schema change) must not pass for bad
   * records. An integer >= 1, or `Infinity`.
   * @default 5
   */
  maxConsecutiveItemFailures?: number;
  /**
   * What a task out of tries is: `'fatal'` stops the run, `'item'` fails the task alone.
   * @default 'fatal'
   */
  outOfTries?: 'fatal' | 'item';
}

/** {@link RetryOptions} after validation, with every default filled in. */
export interface ResolvedRetry {
  readonly when: ((error: unknown, context: TaskContext) => FailureVerdict) | undefined;
  readonly maxAttempts: number;
  readonly delay: number | ((attempt: number, error: unknown) => number) | undefined;
  readonly learnRate: boolean;
  readonly maxConsecutiveItemFailures: number;
  readonly outOfTries: 'fatal' | 'item';
}

const retryOptionNames: ReadonlyArray<keyof RetryOptions> = [
  'when',
  'maxAttempts',
  'delay',
  'learnRate',
  'maxConsecutiveItemFailures',
  'outOfTries',
];

/**
 * Validates the `retry` option and fills in its defaults. Throws a `TypeError` for a value of the wrong
 * type and a `RangeError` for a number out of range (a `delay` longer than a timer can hold included),
 * both in the package's one message template.
 *
 * ## Example
 *
 * ```ts
 * resolveRetry({ maxAttempts: 5 }); // { when: undefined, maxAttempts: 5, ..., maxConsecutiveItemFailures: 5, outOfTries: 'fatal' }
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
  const { when, maxAttempts = 3, delay, learnRate = false, maxConsecutiveItemFailures = 5, outOfTries = 'fatal' } = retry as RetryOptions;
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
  const itemRule = 'an integer >= 1, or Infinity';
  if (typeof maxConsecutiveItemFailures !== 'number') {
    throw new TypeError(expected('retry.maxConsecutiveItemFailures', itemRule, maxConsecutiveItemFailures));
  }
  if (!(Number.isInteger(maxConsecutiveItemFailures) || maxConsecutiveItemFailures === Infinity) || maxConsecutiveItemFailures < 1) {
    throw new RangeError(expected('retry.maxConsecutiveItemFailures', itemRule, maxConsecutiveItemFailures));
  }
  if ((outOfTries as unknown) !== 'fatal' && outOfTries !== 'item') {
    throw new TypeError(expected('retry.outOfTries', "'fatal', 'item' or undefined", outOfTries));
  }
  return { when, maxAttempts, delay, learnRate, maxConsecutiveItemFailures, outOfTries };
}
