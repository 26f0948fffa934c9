// §14: a task whose value is an HTTP response that is not ok has failed, as `fetch` does not say.

/** What a response that is not ok looks like: a fetch `Response`, or any object so shaped. */
export interface NotOkResponse {
  /** The HTTP status: 422, say. */
  readonly status: number;
  /** Always `false`: what makes it a response that is not ok. */
  readonly ok: false;
  /** The status text, when there is one: `'Unprocessable Entity'`, say. */
  readonly statusText?: string;
  /** Where the response came from, when known. */
  readonly url?: string;
}

/**
 * Whether `value` is a response that is not ok: an object whose `status` is a number and whose `ok` is
 * `false`, as a fetch `Response` for a 4xx or 5xx. Anything else, a thrown getter included, is not.
 */
export function isNotOkResponse(value: unknown): value is NotOkResponse {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const { status, ok } = value as { status?: unknown; ok?: unknown };
    return ok === false && typeof status === 'number';
  } catch {
    return false;
  }
}

/**
 * The reason of a try whose value was a response that is not ok (see the `httpErrors` option): it
 * carries the response, so that `httpStatus()`, `retryAfter()`, `readRateLimits()` and
 * `classifyFailure()` read its status and headers, and the task's code can still read its body.
 *
 * ## Example
 *
 * ```ts
 * slowStart(records.map((record) => () => fetch(url, { method: 'POST', body: JSON.stringify(record) })), {
 *   events: (event) => {
 *     if (event.type === 'failed' && event.reason instanceof HttpError) console.log(event.reason.status);
 *   },
 * });
 * ```
 */
export class HttpError extends Error {
  /** Always `'HttpError'`. */
  override readonly name = 'HttpError';
  /** The response's status: 422, say. */
  readonly status: number;

  constructor(
    /** The response the task's value was. */
    readonly response: NotOkResponse,
  ) {
    const url = typeof response.url === 'string' && response.url !== '' ? ` from ${response.url}` : '';
    const text = typeof response.statusText === 'string' && response.statusText !== '' ? ` ${response.statusText}` : '';
    super(`HTTP ${response.status}${text}${url}`);
    this.status = response.status;
  }
}
