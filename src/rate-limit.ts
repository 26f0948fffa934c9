// §13's announcement reader: where a server says its rate-limit budgets stand, on any response.
import { headerOf } from './headers.js';
import { retryAfter } from './retry/retry-after.js';

/** A server's rate-limit budget as one response announces it. */
export interface RateLimitState {
  /** The requests the policy allows in a window, when the server says. */
  readonly limit: number | undefined;
  /** The requests left until the reset. */
  readonly remaining: number;
  /** Milliseconds until the budget is reset (`0` when the reset is due or past). */
  readonly resetIn: number;
  /** The policy's window in milliseconds, when the server says. */
  readonly window: number | undefined;
  /**
   * The policy's name, when the server names it (IETF draft 8's `burst` in `"burst"; r=9; t=1`): it
   * tells apart, from one response to the next, the budgets of a server that announces several at once.
   */
  readonly name?: string | undefined;
}

/** What one form of the headers gave: every field is optional until the end checks them. */
interface Announced {
  limit?: number | undefined;
  remaining?: number | undefined;
  resetIn?: number | undefined;
  window?: number | undefined;
  name?: string | undefined;
}

/** A count: digits only, as every limiter writes them. */
const count = /^\d+$/;
/** Seconds: digits, with a fraction or not. */
const seconds = /^\d+(?:\.\d+)?$/;
/**
 * A `X-RateLimit-Reset` at or above this is a time since the epoch, not seconds left: 10^9 seconds is
 * 2001 as a date, and 31 years as a wait. At or above 10^12 it is in milliseconds (10^12 seconds left
 * would be 31,000 years).
 */
const EPOCH_SECONDS = 1e9;
const EPOCH_MILLISECONDS = 1e12;
/**
 * A reset or a window this long or longer is no budget but a malformed value (hundreds of digits, say):
 * no server asks a client to wait 31 years, which is why a `X-RateLimit-Reset` that long is read as a
 * date. Taken as it came, a spent budget with such a reset would hold a run for as long.
 */
const LONGEST_RESET_MS = EPOCH_SECONDS * 1000;

/**
 * Every rate-limit budget a response (or an error that carries one) announces, in the order announced,
 * or an empty array when it announces none that can be read. A server may announce several at once (a
 * burst per second and a quota per day), and each of them holds: the `rateLimit` option keeps within
 * every one.
 *
 * Headers are read through `headers.get()` on `response` or on its `response`, as `retryAfter()` reads
 * them: a fetch `Response`, Angular's `HttpResponse` and `HttpErrorResponse`, ky's and axios' errors.
 * The forms, in the order they are tried (the first that gives a budget with `remaining` and a reset wins):
 *
 * - IETF draft 8 and later: `RateLimit: "name"; r=37; t=1`, with `RateLimit-Policy: "name"; q=200; w=1`
 *   for the limit and the window (express-rate-limit's `draft-8`): a budget for each policy of the
 *   list, with its name.
 * - IETF draft 7: `RateLimit: limit=200, remaining=37, reset=1`, with `RateLimit-Policy: 200;w=1`.
 * - IETF draft 6: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds left) and
 *   `RateLimit-Policy`.
 * - Legacy: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (@fastify/rate-limit,
 *   express-rate-limit's legacy headers, GitHub, rate-limiter-flexible's recipe).
 *
 * `X-RateLimit-Reset` is seconds left with some servers (@fastify/rate-limit) and a time since the
 * epoch with others (GitHub, express-rate-limit). A value of 10^9 or more is read as epoch seconds and
 * of 10^12 or more as epoch milliseconds, measured against `now`: no server asks a client to wait 31
 * years. (The response's `Date` header is not used: it has whole seconds, a coarser clock than the
 * client's own for a window of one second.) A spent budget (`remaining` 0) on a response that says when
 * to try again (`Retry-After`, as `retryAfter()` reads it) resets no later than that: the recipe of
 * rate-limiter-flexible rounds its epoch reset up to the second, and gives `Retry-After` to the millisecond.
 *
 * Nothing here throws. A field that is not a plain, finite number is ignored, and so is a budget that
 * contradicts itself (more remaining than the limit), lacks `remaining` or a reset, or has a reset of
 * 31 years (10^12 ms) or more. A window that long is left out.
 *
 * ## Example
 *
 * ```ts
 * const response = await fetch(url);
 * const budgets = readRateLimits(response);
 * // [{ name: 'burst', limit: 10, remaining: 9, resetIn: 1000, window: 1000 },
 * //  { name: 'day', limit: 10000, remaining: 9000, resetIn: 80000000, window: 86400000 }]
 * ```
 *
 * @param response A response, or an error carrying one.
 * @param now The current time in ms since the epoch, to measure an epoch reset against.
 * @return The budgets, or an empty array.
 */
export function readRateLimits(response: unknown, now: number = Date.now()): RateLimitState[] {
  const read = (name: string) => headerOf(response, name)?.trim();
  const policy = read('RateLimit-Policy');
  const combined = read('RateLimit');
  const forms: Array<() => Announced[]> = [
    () => (combined === undefined ? [] : draft8(combined, policy)),
    () => (combined === undefined ? [] : [draft7(combined, policy)]),
    () => [
      {
        window: policyOf(policy).window,
        limit: number(read('RateLimit-Limit'), count) ?? policyOf(policy).limit,
        remaining: number(read('RateLimit-Remaining'), count),
        resetIn: secondsToMs(number(read('RateLimit-Reset'), seconds)),
      },
    ],
    () => [
      {
        limit: number(read('X-RateLimit-Limit'), count),
        remaining: number(read('X-RateLimit-Remaining'), count),
        resetIn: resetFromEither(number(read('X-RateLimit-Reset'), seconds), now),
      },
    ],
  ];
  for (const form of forms) {
    const states = form().flatMap((announced) => checked(announced) ?? []);
    if (states.length > 0) return soonerByRetryAfter(states, retryAfter(response, now));
  }
  return [];
}

/**
 * A spent budget on an answer that says when to try again has room again by then: its reset is no later
 * than `Retry-After`. Some servers announce the reset in whole seconds since the epoch, rounded up (up to
 * a second late for a window of one), and their `Retry-After` to the millisecond.
 */
function soonerByRetryAfter(states: RateLimitState[], wait: number | undefined): RateLimitState[] {
  if (wait === undefined) return states;
  return states.map((state) => (state.remaining === 0 && wait < state.resetIn ? { ...state, resetIn: wait } : state));
}

/**
 * The tightest rate-limit budget a response (or an error that carries one) announces, or `undefined`
 * when it announces none that can be read: of the budgets `readRateLimits()` reads, the one that leaves
 * the fewest requests a second (`remaining` spread to the reset), and of two as tight, the first. It is
 * one of the budgets that hold, not all of them: a burst per second that is nearly spent may bind now,
 * though a quota per day leaves fewer a second in the long run.
 *
 * ## Example
 *
 * ```ts
 * const response = await fetch(url);
 * const budget = readRateLimit(response); // { limit: 200, remaining: 37, resetIn: 1000, window: 1000 }
 * ```
 *
 * @param response A response, or an error carrying one.
 * @param now The current time in ms since the epoch, to measure an epoch reset against.
 * @return The budget, or `undefined`.
 */
export function readRateLimit(response: unknown, now: number = Date.now()): RateLimitState | undefined {
  let tightest: RateLimitState | undefined;
  for (const state of readRateLimits(response, now)) {
    if (tightest === undefined || perMs(state) < perMs(tightest)) tightest = state;
  }
  return tightest;
}

/**
 * The first name of {@link readRateLimit}: the same function.
 * @deprecated Use {@link readRateLimit}: this name is kept through 0.x.
 */
export const rateLimit: typeof readRateLimit = readRateLimit;

/**
 * Whether `state` is a budget the pace can keep: `remaining` and the reset finite numbers from 0, the
 * reset short of 10^12 ms, no more remaining than the limit, and the limit, the window and the name of
 * their kinds when given. What a reader of the caller's returns is held to it too: a malformed or
 * contradictory announcement is ignored, never thrown.
 */
export function isRateLimitState(state: unknown): state is RateLimitState {
  if (typeof state !== 'object' || state === null) return false;
  const { limit, remaining, resetIn, window, name } = state as Partial<Record<keyof RateLimitState, unknown>>;
  return (
    isAmount(remaining) &&
    isAmount(resetIn) &&
    resetIn < LONGEST_RESET_MS &&
    (limit === undefined || (isAmount(limit) && remaining <= limit)) &&
    (window === undefined || (isAmount(window) && window < LONGEST_RESET_MS)) &&
    (name === undefined || typeof name === 'string')
  );
}

/** A finite number from 0. */
function isAmount(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && Number.isFinite(value);
}

/** The state an announcement gives, if it has `remaining` and a reset and does not contradict itself. */
function checked({ limit, remaining, resetIn, window, name }: Announced): RateLimitState | undefined {
  // A name only where the form names its budgets: the others' have none, not an undefined one.
  const state = name === undefined ? { limit, remaining, resetIn, window } : { limit, remaining, resetIn, window, name };
  return isRateLimitState(state) ? state : undefined;
}

/** `value` as a number, if it matches `form` and is finite: hundreds of digits read as `Infinity`. */
function number(value: string | undefined, form: RegExp): number | undefined {
  const read = form.test(value ?? '') ? Number(value) : NaN;
  return Number.isFinite(read) ? read : undefined;
}

/** Seconds as whole milliseconds, rounded up: a reset never comes sooner than announced. */
function secondsToMs(value: number | undefined): number | undefined {
  return value === undefined ? undefined : duration(Math.ceil(value * 1000));
}

/** A reset or a window in ms, unless it is too long to be one (see `LONGEST_RESET_MS`). */
function duration(ms: number): number | undefined {
  return ms < LONGEST_RESET_MS ? ms : undefined;
}

/** A legacy reset: seconds left, or a time since the epoch (in seconds or milliseconds); see `readRateLimits`. */
function resetFromEither(value: number | undefined, now: number): number | undefined {
  if (value === undefined || value < EPOCH_SECONDS) return secondsToMs(value);
  const at = value < EPOCH_MILLISECONDS ? value * 1000 : value;
  return duration(Math.max(0, Math.ceil(at - now)));
}

/** Draft 6 and 7's `RateLimit-Policy: 200;w=1` (the limit first, then parameters; only `w` is read). */
function policyOf(policy: string | undefined): Announced {
  if (policy === undefined) return {};
  const [limit, ...parameters] = policy.split(',')[0].split(';');
  const window = parameters.map((p) => /^\s*w=(\d+)\s*$/.exec(p)).find((match) => match !== null);
  return { limit: number(limit.trim(), count), window: secondsToMs(number(window?.[1], count)) };
}

/** Draft 7's `RateLimit: limit=200, remaining=37, reset=1`, with its policy for the window. */
function draft7(combined: string, policy: string | undefined): Announced {
  const fields = new Map(
    combined.split(',').map((field) => {
      const [key, value] = field.split('=') as [string, string?];
      return [key.trim().toLowerCase(), value?.trim()] as const;
    }),
  );
  return {
    limit: number(fields.get('limit'), count) ?? policyOf(policy).limit,
    remaining: number(fields.get('remaining'), count),
    resetIn: secondsToMs(number(fields.get('reset'), seconds)),
    window: policyOf(policy).window,
  };
}

/**
 * One item of a structured-field list (RFC 9651) as the drafts since 8 send it: a name (a string or a
 * token), then `;key=value` parameters. A parameter value may be a number, a token or a byte sequence
 * (`pk=:...:`); a string with a comma or a semicolon in it is not read, and makes the item unreadable.
 */
const item = /^\s*("(?:[^"\\]|\\.)*"|[A-Za-z*][\w:.%*/!#$&'+^`|~-]*)\s*((?:;\s*[a-z*][a-z0-9_.*-]*(?:=[^;,]*)?\s*)*)(?:,|$)/;

/**
 * The items of a list, each its name and parameters, or `undefined` if any part is not an item. The
 * list comes trimmed: once its last item is read, nothing is left of it.
 */
function items(list: string): Array<{ name: string; parameters: Map<string, string | undefined> }> | undefined {
  const found = [];
  let rest = list;
  while (rest !== '') {
    const match = item.exec(rest);
    if (match === null) return undefined;
    // What comes before the first `;` is no parameter: it has an empty key, which nothing reads.
    const parameters = new Map(
      match[2].split(';').map((parameter) => {
        const [key, value] = parameter.split('=') as [string, string?];
        return [key.trim(), value?.trim()] as const;
      }),
    );
    found.push({ name: match[1], parameters });
    rest = rest.slice(match[0].length);
  }
  return found;
}

/**
 * Draft 8's `RateLimit: "name"; r=37; t=1`, with `RateLimit-Policy: "name"; q=200; w=1` for the limit and
 * the window: a budget for each item, in order; an unreadable list has none.
 */
function draft8(combined: string, policy: string | undefined): Announced[] {
  const policies = (policy === undefined ? undefined : items(policy)) ?? [];
  return (items(combined) ?? []).map(({ name, parameters }) => {
    const terms = policies.find((p) => p.name === name)?.parameters;
    return {
      name: unquoted(name),
      limit: number(terms?.get('q'), count),
      remaining: number(parameters.get('r'), count),
      resetIn: secondsToMs(number(parameters.get('t'), count)),
      window: secondsToMs(number(terms?.get('w'), count)),
    };
  });
}

/** A policy's name as it is meant: a token as written, a string without its quotes and escapes. */
function unquoted(name: string): string {
  return name.startsWith('"') ? name.slice(1, -1).replace(/\\(.)/g, '$1') : name;
}

/** How many requests a millisecond a budget leaves: the remaining budget spread to the reset. */
function perMs({ remaining, resetIn }: RateLimitState): number {
  return resetIn === 0 ? Infinity : remaining / resetIn;
}
