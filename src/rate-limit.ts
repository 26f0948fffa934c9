// §13's announcement reader: where a server says its rate-limit budget stands, on any response.
import { headerOf } from './headers.js';

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
}

/** What one form of the headers gave: every field is optional until the end checks them. */
interface Announced {
  limit?: number | undefined;
  remaining?: number | undefined;
  resetIn?: number | undefined;
  window?: number | undefined;
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
 * The rate-limit budget a response (or an error that carries one) announces, or `undefined` when it
 * announces none that can be read.
 *
 * Headers are read through `headers.get()` on `response` or on its `response`, as `retryAfter()` reads
 * them: a fetch `Response`, Angular's `HttpResponse` and `HttpErrorResponse`, ky's and axios' errors.
 * The forms, in the order they are tried (the first that gives both `remaining` and a reset wins):
 *
 * - IETF draft 8 and later: `RateLimit: "name"; r=37; t=1`, with `RateLimit-Policy: "name"; q=200; w=1`
 *   for the limit and the window (express-rate-limit's `draft-8`). Of several policies, the one that
 *   leaves the fewest requests a second (`r / t`) is taken.
 * - IETF draft 7: `RateLimit: limit=200, remaining=37, reset=1`, with `RateLimit-Policy: 200;w=1`.
 * - IETF draft 6: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds left) and
 *   `RateLimit-Policy`.
 * - Legacy: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (@fastify/rate-limit,
 *   express-rate-limit's legacy headers, GitHub).
 *
 * `X-RateLimit-Reset` is seconds left with some servers (@fastify/rate-limit) and a time since the
 * epoch with others (GitHub, express-rate-limit). A value of 10^9 or more is read as epoch seconds and
 * of 10^12 or more as epoch milliseconds, measured against `now`: no server asks a client to wait 31
 * years. (The response's `Date` header is not used: it has whole seconds, a coarser clock than the
 * client's own for a window of one second.)
 *
 * Nothing here throws. A field that is not a plain, finite number is ignored, and so is an announcement
 * that contradicts itself (more remaining than the limit), lacks `remaining` or a reset, or has a reset
 * of 31 years (10^12 ms) or more. A window that long is left out.
 *
 * ## Example
 *
 * ```ts
 * const response = await fetch(url);
 * const budget = rateLimit(response); // { limit: 200, remaining: 37, resetIn: 1000, window: 1000 }
 * ```
 *
 * @param response A response, or an error carrying one.
 * @param now The current time in ms since the epoch, to measure an epoch reset against.
 * @return The budget, or `undefined`.
 */
export function rateLimit(response: unknown, now: number = Date.now()): RateLimitState | undefined {
  const read = (name: string) => headerOf(response, name)?.trim();
  const policy = read('RateLimit-Policy');
  const combined = read('RateLimit');
  const forms: Array<() => Announced | undefined> = [
    () => (combined === undefined ? undefined : draft8(combined, policy)),
    () => (combined === undefined ? undefined : draft7(combined, policy)),
    () => ({
      window: policyOf(policy).window,
      limit: number(read('RateLimit-Limit'), count) ?? policyOf(policy).limit,
      remaining: number(read('RateLimit-Remaining'), count),
      resetIn: secondsToMs(number(read('RateLimit-Reset'), seconds)),
    }),
    () => ({
      limit: number(read('X-RateLimit-Limit'), count),
      remaining: number(read('X-RateLimit-Remaining'), count),
      resetIn: resetFromEither(number(read('X-RateLimit-Reset'), seconds), now),
    }),
  ];
  for (const form of forms) {
    const state = checked(form());
    if (state !== undefined) return state;
  }
  return undefined;
}

/**
 * The state an announcement gives, if it has `remaining` and a reset short of {@link LONGEST_RESET_MS}
 * and does not contradict itself.
 */
function checked(announced: Announced | undefined): RateLimitState | undefined {
  if (announced === undefined) return undefined;
  const { limit, remaining, resetIn, window } = announced;
  if (remaining === undefined || resetIn === undefined || !(resetIn < LONGEST_RESET_MS)) return undefined;
  if (remaining > (limit ?? Infinity)) return undefined;
  return { limit, remaining, resetIn, window: window !== undefined && window < LONGEST_RESET_MS ? window : undefined };
}

/** `value` as a number, if it matches `form` and is finite: hundreds of digits read as `Infinity`. */
function number(value: string | undefined, form: RegExp): number | undefined {
  const read = form.test(value ?? '') ? Number(value) : NaN;
  return Number.isFinite(read) ? read : undefined;
}

/** Seconds as whole milliseconds, rounded up: a reset never comes sooner than announced. */
function secondsToMs(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.ceil(value * 1000);
}

/** A legacy reset: seconds left, or a time since the epoch (in seconds or milliseconds); see `rateLimit`. */
function resetFromEither(value: number | undefined, now: number): number | undefined {
  if (value === undefined || value < EPOCH_SECONDS) return secondsToMs(value);
  const at = value < EPOCH_MILLISECONDS ? value * 1000 : value;
  return Math.max(0, Math.ceil(at - now));
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

/** Draft 8's `RateLimit: "name"; r=37; t=1`, with `RateLimit-Policy: "name"; q=200; w=1` for the limit and window. */
function draft8(combined: string, policy: string | undefined): Announced | undefined {
  const states = items(combined);
  if (states === undefined) return undefined;
  const policies = (policy === undefined ? undefined : items(policy)) ?? [];
  let tightest: PolicyBudget | undefined;
  for (const { name, parameters } of states) {
    const remaining = number(parameters.get('r'), count);
    const resetIn = secondsToMs(number(parameters.get('t'), count));
    if (remaining === undefined || resetIn === undefined) continue;
    const terms = policies.find((p) => p.name === name)?.parameters;
    const state = {
      limit: number(terms?.get('q'), count),
      remaining,
      resetIn,
      window: secondsToMs(number(terms?.get('w'), count)),
    };
    if (tightest === undefined || perMs(state) < perMs(tightest)) tightest = state;
  }
  return tightest;
}

/** One policy's budget, as draft 8 gives it. */
type PolicyBudget = Announced & { remaining: number; resetIn: number };

/** How many requests a millisecond a policy leaves: the remaining budget spread to the reset. */
function perMs({ remaining, resetIn }: PolicyBudget): number {
  return resetIn === 0 ? Infinity : remaining / resetIn;
}
