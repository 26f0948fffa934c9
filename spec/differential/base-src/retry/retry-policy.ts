// Decides what a failed try means under the `retry` option (§10): a throttle to wait out, or a failure.
import { defaultRetryDelay } from './backoff.js';
import type { ResolvedRetry } from './retry-options.js';
import { expected } from '../expected.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';
import type { TaskContext } from '../types.js';

/** What a failed try leads to: a retry after `pause` ms, or the end of the task with `reason`. */
export type RetryDecision = { readonly retry: true; readonly pause: number } | { readonly retry: false; readonly reason: unknown };

/**
 * Whether the try that failed with `error` is retried, and after how long: `max(what when returned,
 * the backoff)`, capped at the longest delay a timer can hold. A `when` or `delay` that throws, or that
 * answers something other than the rule allows, ends the task with that error: a bug in the policy must
 * not pass for a throttle.
 *
 * ## Example
 *
 * ```ts
 * const retry = resolveRetry({ when: () => 300, delay: 100 }) as ResolvedRetry;
 * decideRetry(retry, error, 1, context); // { retry: true, pause: 300 }
 * decideRetry(retry, error, 3, context); // { retry: false, reason: error }: out of tries
 * ```
 *
 * @param retry The validated `retry` option.
 * @param error What the try failed with.
 * @param attempt Which try failed, from 1: the task's own count, not its context's, which the factory
 * may have written to.
 * @param context The context of the try that failed, for `when`.
 * @return A retry after `pause` ms, or the end of the task with `reason`.
 */
export function decideRetry(retry: ResolvedRetry, error: unknown, attempt: number, context: TaskContext): RetryDecision {
  if (attempt >= retry.maxAttempts) return { retry: false, reason: error };
  try {
    const answer = retry.when === undefined ? true : retry.when(error, context);
    if (answer === false) return { retry: false, reason: error };
    if (answer !== true && !(typeof answer === 'number' && answer >= 0 && answer < Infinity)) {
      return { retry: false, reason: new TypeError(expected('retry.when()', 'a boolean or a finite number of milliseconds >= 0', answer)) };
    }
    const { delay } = retry;
    const backoff = delay === undefined ? defaultRetryDelay(attempt) : typeof delay === 'number' ? delay : delay(attempt, error);
    if (!(typeof backoff === 'number' && backoff >= 0 && backoff < Infinity)) {
      return { retry: false, reason: new TypeError(expected('retry.delay()', 'a finite number of milliseconds >= 0', backoff)) };
    }
    // A longer pause than a timer can hold would fire at once: the longest one is kept instead.
    return { retry: true, pause: Math.min(MAX_TIMER_DELAY, Math.max(answer === true ? 0 : answer, backoff)) };
  } catch (thrown) {
    return { retry: false, reason: thrown };
  }
}
