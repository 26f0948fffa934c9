// §10's pushback reader: how long a server's `Retry-After` header asks a client to wait.
import { headerOf } from '../headers.js';
import { MAX_TIMER_DELAY } from '../timer-limit.js';

/**
 * Delta-seconds: whole seconds (`120`), as RFC 9110 defines them, or decimal ones (`9.967`), as servers
 * send them too (rate-limiter-flexible's README writes `msBeforeNext / 1000`). The groups are the digits
 * before and after the point.
 */
const deltaSeconds = /^(\d+)(?:\.(\d+))?$/;

const days = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].join('|');
const longDays = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'].join('|');
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const month = `(${months.join('|')})`;
const time = '(\\d\\d):(\\d\\d):(\\d\\d)';

// The three forms of an HTTP-date (RFC 9110 §5.6.7), which a recipient must all accept. Their names and
// GMT are case-sensitive. A looser parser such as `Date.parse` would read "1.5" or "-1" as dates.
/** `Sun, 06 Nov 1994 08:49:37 GMT`: day, month, year, time. */
const imfFixdate = new RegExp(`^(?:${days}), (\\d\\d) ${month} (\\d{4}) ${time} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`: day, month, two-digit year, time (obsolete). */
const rfc850Date = new RegExp(`^(?:${longDays}), (\\d\\d)-${month}-(\\d\\d) ${time} GMT$`);
/** `Sun Nov  6 08:49:37 1994`: month, day (space-padded), time, year (obsolete, C's asctime). */
const asctimeDate = new RegExp(`^(?:${days}) ${month} ([\\d ]\\d) ${time} (\\d{4})$`);

/**
 * How many milliseconds an error's `Retry-After` header asks to wait before trying again, or
 * `undefined` when it asks for nothing readable.
 *
 * The header is read through `headers.get('Retry-After')` on the error itself or on its `response`,
 * which covers Angular's `HttpErrorResponse`, a fetch `Response` (thrown, or carried by ky's and
 * ofetch's errors), axios' errors and anything else with a `get()`. A header that is missing, a `get`
 * that throws, or a value that is neither form gives `undefined`: this function never throws, so it is
 * safe inside `retry.when`.
 *
 * Both forms of RFC 9110 (section 10.2.3) are understood: delta-seconds (`120`: 120,000 ms) and an
 * HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`: the time until then, or `0` if it has passed). The result
 * is at most 2^31 - 1 ms, the longest delay a timer can have.
 *
 * Seconds may also have a fraction, which the RFC does not define but which servers send and clients
 * such as ky and axios-retry read: `9.967` is 9,967 ms. A fraction of a millisecond is rounded up
 * (`9.9671`: 9,968 ms), so that a retry never comes before the time asked for. Those clients read the
 * value with `Number()`, which also takes `1e3`, `0x10`, `+5` and whitespace alone (as 0); this function
 * takes seconds only as number formatters write them, with digits on both sides of the point, so
 * `.5`, `10.`, `+5`, `-1`, `1e3`, `0x10` and `1,5` give `undefined`, as does anything in neither form.
 *
 * ## Example
 *
 * Retry throttles after the time the server asks for, and other transient failures after the backoff:
 *
 * ```ts
 * slowStart(requests, {
 *   retry: {
 *     when: (error) =>
 *       error instanceof HttpErrorResponse && [0, 429, 503].includes(error.status) ? (retryAfter(error) ?? true) : false,
 *   },
 * });
 * ```
 *
 * @param error The error a task failed with.
 * @param now The current time in ms since the epoch, to measure an HTTP-date against.
 * @return The milliseconds to wait (`0` or more), or `undefined`.
 */
export function retryAfter(error: unknown, now: number = Date.now()): number | undefined {
  const value = headerOf(error, 'Retry-After');
  if (value === undefined) return undefined;
  // A field value never includes the whitespace around it (RFC 9110 §5.5); fetch already trims it.
  const text = value.trim();
  const seconds = deltaSeconds.exec(text);
  const wait = seconds ? milliseconds(seconds) : httpDate(text, now) - now;
  // A date in the past means "now"; NaN (not a date) means nothing was asked.
  return Number.isNaN(wait) ? undefined : Math.min(MAX_TIMER_DELAY, Math.max(0, wait));
}

/**
 * The seconds a match of `deltaSeconds` stands for, in whole milliseconds, rounded up. Read from the
 * digits rather than computed as `Number(value) * 1000`, which is not exact: `0.007 * 1000` is
 * 7.000000000000001, which would round up to 8.
 */
function milliseconds([, whole, fraction = '']: RegExpExecArray): number {
  const thousandths = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const beyondThousandths = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  return Number(whole) * 1000 + thousandths + beyondThousandths;
}

/** The time an HTTP-date stands for, in ms since the epoch, or `NaN` if `value` is not one. */
function httpDate(value: string, now: number): number {
  let match = imfFixdate.exec(value);
  if (match) return utc(match[3], match[2], match[1], match[4], match[5], match[6]);
  match = rfc850Date.exec(value);
  if (match) {
    // RFC 9110: a two-digit year more than 50 years ahead is the most recent past year ending so. So it
    // is the year ending so from 49 years ago to 50 years ahead: "00" in 2099 is 2100, not 2000.
    const thisYear = new Date(now).getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    else if (year <= thisYear - 50) year += 100;
    return utc(String(year), match[2], match[1], match[4], match[5], match[6]);
  }
  match = asctimeDate.exec(value);
  if (match) return utc(match[6], match[1], match[2], match[3], match[4], match[5]);
  return NaN;
}

/** `Date.UTC` of the parts, or `NaN` for a day or time that does not exist (31 Feb, 25:00). */
function utc(year: string, monthName: string, day: string, hours: string, minutes: string, seconds: string): number {
  const date = new Date(0);
  // setUTCFullYear rather than Date.UTC, which would read years 0 to 99 as 1900 to 1999.
  date.setUTCFullYear(Number(year), months.indexOf(monthName), Number(day));
  if (date.getUTCDate() !== Number(day) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 60) return NaN;
  // Second 60 is a leap second (RFC 5322); Date has none, so it is the first second of the next minute.
  date.setUTCHours(Number(hours), Number(minutes), Number(seconds));
  return date.getTime();
}
