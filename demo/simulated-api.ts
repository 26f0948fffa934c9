// A fake rate-limited API, so that the demo needs no server: each call takes a random time, and
// once the quota of accepted calls is used up every further call fails like an HTTP 429 would.
// With a rate limit instead (a token bucket), a call over the rate is answered 429 with a
// `Retry-After`, as real APIs do: "not so fast", not "never".

import { performance } from 'node:perf_hooks';

/** The error of a call made after the quota ran out, shaped like an HTTP client's 429 error. */
export class QuotaExceededError extends Error {
  readonly status = 429;

  constructor(
    /** 0-based, like {@link CallResult.callNumber}: the message counts calls from 1 ("call 21" is `callNumber` 20). */
    readonly callNumber: number,
    readonly quota: number,
  ) {
    super(`429 Too Many Requests: call ${callNumber + 1} is over the quota of ${quota} calls`);
    this.name = 'QuotaExceededError';
  }
}

/** Response headers as far as `retryAfter()` reads them: `get(name)`, case-insensitive, `null` if absent. */
export class SimulatedHeaders {
  private readonly fields: ReadonlyMap<string, string>;

  constructor(fields: Record<string, string>) {
    this.fields = new Map(Object.entries(fields).map(([name, value]) => [name.toLowerCase(), value]));
  }

  get(name: string): string | null {
    return this.fields.get(name.toLowerCase()) ?? null;
  }
}

/**
 * The error of a call over the rate limit, shaped like Angular's `HttpErrorResponse` or a fetch
 * `Response`: a `status` of 429 and `headers.get('Retry-After')` in whole seconds.
 */
export class RateLimitedError extends Error {
  readonly status = 429;
  readonly headers: SimulatedHeaders;

  constructor(
    /** 0-based, like {@link CallResult.callNumber}. */
    readonly callNumber: number,
    /** What the `Retry-After` header says, in seconds: when the bucket will hold a token again, rounded up. */
    readonly retryAfterSeconds: number,
  ) {
    super(`429 Too Many Requests: call ${callNumber + 1} is over the rate limit; Retry-After: ${retryAfterSeconds}`);
    this.name = 'RateLimitedError';
    this.headers = new SimulatedHeaders({ 'Retry-After': String(retryAfterSeconds) });
  }
}

/** Whether an error is an HTTP 429 of the simulated API (quota or rate limit). */
export function is429(error: unknown): boolean {
  return error instanceof QuotaExceededError || error instanceof RateLimitedError;
}

/** A token bucket: `burst` calls at once, then `perSecond` calls a second on average. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface SimulatedApiOptions {
  /** Calls accepted before the API starts answering 429; the call numbered `quota` (0-based) is the first to fail. */
  quota: number;
  /** Typical latency in ms; each call takes a random time between half and one and a half of it. */
  latencyMs: number;
  /** Source of randomness in [0, 1); pass `seededRandom(seed)` for a repeatable run. */
  random: () => number;
  /**
   * If set, latencies are log-normal instead: `latencyMs` is their median and this their σ
   * (0.25: fairly even; 1: a few calls ten times slower than the median).
   */
  spread?: number;
  /**
   * If set, the API also limits the rate of calls with a token bucket that starts full: a call that
   * finds no token is answered 429 with a `Retry-After` (a {@link RateLimitedError}) and uses none.
   */
  rateLimit?: RateLimit;
  /** The clock of the rate limit, in ms; default `performance.now()`. */
  now?: () => number;
}

export interface CallResult {
  /** 0-based number of this call among all calls the API received. */
  callNumber: number;
  /** How long the call took, as drawn from the latency distribution. */
  latencyMs: number;
}

export interface SimulatedApi {
  /** Makes one call; it settles after its latency, or rejects with the signal's reason on abort. */
  call(signal?: AbortSignal): Promise<CallResult>;
  /** Calls received so far, accepted or not. */
  readonly callsMade: number;
  /** Calls answered with a 429 so far (over the quota or over the rate). */
  readonly callsRejected: number;
}

/** A throttled call is answered this much faster than a served one: a rate limiter does no work. */
export const THROTTLED_LATENCY_SHARE = 0.25;

export function createSimulatedApi({
  quota,
  latencyMs,
  random,
  spread,
  rateLimit,
  now = () => performance.now(),
}: SimulatedApiOptions): SimulatedApi {
  let callsMade = 0;
  let callsRejected = 0;
  let tokens = rateLimit?.burst ?? 0;
  let refilledAt = rateLimit === undefined ? 0 : now();

  /** Takes a token for a call arriving now, or returns the whole seconds until the bucket holds one. */
  function takeToken(limit: RateLimit): number | undefined {
    const time = now();
    tokens = Math.min(limit.burst, tokens + ((time - refilledAt) / 1000) * limit.perSecond);
    refilledAt = time;
    if (tokens >= 1) {
      tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - tokens) / limit.perSecond));
  }

  function call(signal?: AbortSignal): Promise<CallResult> {
    // The quota is charged when the request arrives, as real rate limiters do, so the outcome of
    // a call depends only on how many calls came before it, not on which one finishes first.
    const callNumber = callsMade++;
    const overQuota = callNumber >= quota;
    const retryAfterSeconds = overQuota || rateLimit === undefined ? undefined : takeToken(rateLimit);
    // The n-th call always takes the n-th latency drawn, so two runs with the same seed that call
    // in the same order (both pacings start tasks in source order) see the same latencies.
    const latency = spread === undefined ? latencyMs * (0.5 + random()) : latencyMs * Math.exp(spread * standardNormal(random));

    return new Promise<CallResult>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const throttled = retryAfterSeconds !== undefined;
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          if (overQuota) {
            callsRejected++;
            reject(new QuotaExceededError(callNumber, quota));
          } else if (throttled) {
            callsRejected++;
            reject(new RateLimitedError(callNumber, retryAfterSeconds));
          } else {
            resolve({ callNumber, latencyMs: latency });
          }
        },
        throttled ? latency * THROTTLED_LATENCY_SHARE : latency,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  return {
    call,
    get callsMade() {
      return callsMade;
    },
    get callsRejected() {
      return callsRejected;
    },
  };
}

/**
 * A small seeded generator (mulberry32): the same seed gives the same sequence of numbers in
 * [0, 1), which is all a demo needs to repeat a run's latencies. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from two uniform ones (Box-Muller). */
export function standardNormal(random: () => number): number {
  const u = 1 - random(); // in (0, 1], so the logarithm is finite
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
