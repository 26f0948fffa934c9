// §14's four kinds of failed try, and the default that tells them apart from what HTTP clients throw.
import { readRateLimits } from '../rate-limit.js';
import { retryAfter } from './retry-after.js';

/**
 * What a failed try means:
 * - `'throttle'`: the server says "not so fast" (429; 503 with `Retry-After`): the run pauses, the pace
 *   drops, and the task goes again first.
 * - `'transient'`: this try failed for a reason of its own (no answer, 502, 503 without `Retry-After`,
 *   504): the task alone waits its backoff and goes again; the pace and every other task go on.
 * - `'item'`: this item will not succeed as it is (a 422 on one record, say): the task fails for good,
 *   and the run goes on.
 * - `'fatal'`: anything else (401, 403, a quota, a bug): nothing more starts, and the stream errors.
 */
export type FailureKind = 'throttle' | 'transient' | 'item' | 'fatal';

/** A failure to try again, and how long the server asked to wait, in ms, when it said. */
export interface RetryVerdict {
  /** The kind of failure: see {@link FailureKind}. */
  readonly kind: 'throttle' | 'transient';
  /** The server's pushback: its `Retry-After`, or the reset of a budget it announced spent. */
  readonly retryAfter?: number | undefined;
}

/**
 * What `retry.when` may answer for a failed try: a {@link FailureKind}, a {@link RetryVerdict}, or, as
 * before the kinds: `true` (a throttle), a number of ms (a throttle the server asked to wait out so
 * long) or `false` (fatal). `undefined` leaves the failure to {@link classifyFailure}, the default.
 */
export type FailureVerdict = FailureKind | RetryVerdict | boolean | number | undefined;

/** Network error codes of Node, undici and axios that mean the request got no answer. */
const noAnswerCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ERR_NETWORK',
]);

/** A property of `value`, or `undefined` when `value` has none or reading it throws. */
function read(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** An HTTP status, or `undefined`: an integer from 0 to 599. */
function asStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 600 ? value : undefined;
}

/**
 * The HTTP status a failure carries, wherever the usual clients keep it: `status` on the error itself (a
 * fetch `Response`, an {@link HttpError}, Angular's `HttpErrorResponse`, where 0 means no answer), or on
 * its `response` (axios, ky), or `statusCode` on either (got, Node's own). `undefined` when it has none.
 *
 * ## Example
 *
 * ```ts
 * httpStatus(await fetch(url)); // 422, say
 * httpStatus(axiosError); // error.response.status
 * httpStatus(new Error('boom')); // undefined
 * ```
 */
export function httpStatus(error: unknown): number | undefined {
  const response = read(error, 'response');
  return (
    asStatus(read(error, 'status')) ??
    asStatus(read(response, 'status')) ??
    asStatus(read(error, 'statusCode')) ??
    asStatus(read(response, 'statusCode'))
  );
}

/** Whether `error` says the request got no answer: fetch's `TypeError`, a timeout, a network error code. */
function noAnswer(error: unknown): boolean {
  const name = read(error, 'name');
  // fetch rejects with a TypeError when the network fails ("fetch failed", "Failed to fetch",
  // "NetworkError when attempting to fetch resource", "Load failed"); an
  // `AbortSignal.timeout()` aborts it with a TimeoutError.
  if (name === 'TimeoutError' || (error instanceof TypeError && /fetch|network|load failed/i.test(error.message))) return true;
  for (let cause = error, depth = 0; cause !== undefined && depth < 4; cause = read(cause, 'cause'), depth++) {
    const code = read(cause, 'code');
    if (typeof code === 'string' && noAnswerCodes.has(code)) return true;
  }
  return false;
}

/** The server's pushback: its `Retry-After`, or else the latest reset of a budget it announced spent. */
function pushback(error: unknown, now: number): number | undefined {
  const asked = retryAfter(error, now);
  if (asked !== undefined) return asked;
  let reset: number | undefined;
  for (const budget of readRateLimits(error, now)) {
    if (budget.remaining === 0) reset = Math.max(reset ?? 0, budget.resetIn);
  }
  return reset;
}

/**
 * The default of `retry.when`: which kind of failure `error` is, read from what HTTP clients
 * throw (see {@link httpStatus}). 429, and 503 with `Retry-After`, are throttles, with the server's
 * pushback when it gave one; no answer (fetch's `TypeError`, a timeout, `ECONNRESET` and its kin, status
 * 0), 502, 503 without `Retry-After` and 504 are transient; everything else is fatal. Nothing is an item
 * failure: only the user knows which statuses mean a bad record.
 *
 * To add to it, answer what you know in `retry.when` and `undefined` for the rest, which this decides:
 *
 * ```ts
 * slowStart(tasks, { retry: { when: (error) => (httpStatus(error) === 422 ? 'item' : undefined) } });
 * ```
 *
 * @param error What the try failed with.
 * @param now The time `Retry-After` dates and resets are read against, in ms since the epoch.
 * @return The kind, with the server's pushback in ms when it is a throttle or transient failure that gave one.
 */
export function classifyFailure(
  error: unknown,
  now: number = Date.now(),
):
  | RetryVerdict
  | {
      /** Anything else: the run stops. */
      readonly kind: 'fatal';
    } {
  const status = httpStatus(error);
  if (status === 429) return { kind: 'throttle', retryAfter: pushback(error, now) };
  if (status === 503) {
    const asked = retryAfter(error, now);
    return asked === undefined ? { kind: 'transient' } : { kind: 'throttle', retryAfter: asked };
  }
  if (status === 502 || status === 504 || status === 0 || (status === undefined && noAnswer(error))) return { kind: 'transient' };
  return { kind: 'fatal' };
}
