// Decides what a failed try means under the `retry` option (§10, §14): which of the four kinds it is,
// and for a try to be made again, how long to wait.
import { defaultRetryDelay } from './backoff.js';
import { classifyFailure, type RetryVerdict } from './failure-kind.js';
import type { ResolvedRetry } from './retry-options.js';
import { expected } from '../expected.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';
import type { TaskContext } from '../types.js';

/** What a failed try leads to: a try again after `pause` ms, or the end of the task with `reason`. */
export type RetryDecision =
  { readonly kind: 'throttle' | 'transient'; readonly pause: number } | { readonly kind: 'item' | 'fatal'; readonly reason: unknown };

/** The rule `retry.when`'s answers follow, for the message when one does not. */
const whenRule = 'a failure kind, { kind, retryAfter }, a boolean, a finite number of milliseconds >= 0, or undefined';

/** A pushback in ms, as `when` may give one: finite and >= 0. */
function isWait(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value < Infinity;
}

/** What `when` answered, as a kind with the server's pushback; `undefined` when the answer breaks the rule. */
function verdictOf(answer: unknown, error: unknown): RetryVerdict | { readonly kind: 'item' | 'fatal' } | undefined {
  switch (answer) {
    case undefined:
      return classifyFailure(error);
    case true:
      return { kind: 'throttle' };
    case false:
      return { kind: 'fatal' };
    case 'throttle':
    case 'transient':
    case 'item':
    case 'fatal':
      return { kind: answer };
  }
  if (isWait(answer)) return { kind: 'throttle', retryAfter: answer };
  if (typeof answer !== 'object' || answer === null) return undefined;
  const { kind, retryAfter } = answer as { kind?: unknown; retryAfter?: unknown };
  if ((kind === 'throttle' || kind === 'transient') && (retryAfter === undefined || isWait(retryAfter))) return { kind, retryAfter };
  return undefined;
}

/**
 * What the try that failed with `error` means, and for one to be tried again, after how long. The
 * server's pushback (`Retry-After`, a spent budget's reset, a number from `when`) is the pause, and the
 * backoff is for a failure that says nothing; a `delay` of the user's still applies, as the least pause.
 * A task out of tries ends as `retry.outOfTries` says. A `when` or `delay` that throws, or that answers
 * something other than its rule allows, is fatal with that error: a bug in the policy must not pass for
 * a throttle.
 *
 * ## Example
 *
 * ```ts
 * const retry = resolveRetry({ when: () => 300, delay: 100 }) as ResolvedRetry;
 * decideRetry(retry, error, 1, context); // { kind: 'throttle', pause: 300 }
 * decideRetry(retry, error, 3, context); // { kind: 'fatal', reason: error }: out of tries
 * ```
 *
 * @param retry The validated `retry` option.
 * @param error What the try failed with.
 * @param attempt Which try failed, from 1: the task's own count, not its context's, which the factory
 * may have written to.
 * @param context The context of the try that failed, for `when`.
 * @return A try again after `pause` ms, or the end of the task with `reason`.
 */
export function decideRetry(retry: ResolvedRetry, error: unknown, attempt: number, context: TaskContext): RetryDecision {
  try {
    const answer = retry.when === undefined ? undefined : retry.when(error, context);
    const verdict = verdictOf(answer, error);
    if (verdict === undefined) return { kind: 'fatal', reason: new TypeError(expected('retry.when()', whenRule, answer)) };
    if (verdict.kind === 'item' || verdict.kind === 'fatal') return { kind: verdict.kind, reason: error };
    if (attempt >= retry.maxAttempts) return { kind: retry.outOfTries, reason: error };
    const { delay } = retry;
    const { retryAfter } = verdict as RetryVerdict;
    // The server said how long: that is the pause, unless the user set a delay of their own.
    const backoff =
      delay === undefined ? (retryAfter ?? defaultRetryDelay(attempt)) : typeof delay === 'number' ? delay : delay(attempt, error);
    if (!isWait(backoff)) {
      return { kind: 'fatal', reason: new TypeError(expected('retry.delay()', 'a finite number of milliseconds >= 0', backoff)) };
    }
    // A longer pause than a timer can hold would fire at once: the longest one is kept instead.
    return { kind: verdict.kind, pause: Math.min(MAX_TIMER_DELAY, Math.max(retryAfter ?? 0, backoff)) };
  } catch (thrown) {
    return { kind: 'fatal', reason: thrown };
  }
}
